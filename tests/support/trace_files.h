#pragma once
// Chrome trace tests: the bundled real traces (Kineto's, from HolisticTraceAnalysis), loading
// one, and small traces written for a test.

#include "model/capture_loader.h"
#include "model/region_kind.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <memory>
#include <string>

namespace spanscope::testing {

inline QString kinetoDataPath(const QString& name)
{
    return QStringLiteral(SPANSCOPE_TEST_DATA "/kineto/") + name;
}

// The capture of `path`, or null with the error logged.
inline std::shared_ptr<const model::Capture> loadOk(const std::string& path, model::LoadOptions options = {})
{
    auto loaded = model::loadCapture(path, nullptr, options);
    if (!loaded) {
        qWarning("%s", loaded.error().toString().c_str());
        return nullptr;
    }
    return loaded.value().capture;
}

// A bundled Kineto trace loaded as the viewer loads it (with its timeline); fails the
// process when it cannot be read (the data is part of the tests).
inline model::LoadedCapture loadKineto(const char* name)
{
    auto loaded = model::loadCapture(kinetoDataPath(QString::fromLatin1(name)).toStdString(), nullptr,
                                     model::LoadOptions{true});
    if (!loaded)
        qFatal("%s", loaded.error().toString().c_str());
    return loaded.value();
}

// Pooled figures of every region, keyed by "kind name".
struct Pooled
{
    uint64_t calls = 0;
    int64_t total = 0;
    uint64_t gpuCalls = 0;
    int64_t gpuTotal = 0;
};
inline std::map<std::string, Pooled> pooledOf(const model::LoadedCapture& loaded)
{
    std::map<std::string, Pooled> result;
    const auto& c = *loaded.capture;
    for (uint32_t region = 0; region < c.regionNames.size(); ++region) {
        const auto& s = loaded.summary->pooled(region);
        result[std::string(model::regionKindName(c.regionKind(region))) + " " + c.regionName(region)] =
            Pooled{s.calls, s.total, s.gpuCalls.value_or(0), s.gpuTotal.value_or(0)};
    }
    return result;
}

// Files written into a temporary directory that lives as long as this.
class TraceFiles
{
public:
    std::string write(const QString& name, const QByteArray& text)
    {
        QFile file(m_dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(file.fileName()));
        file.write(text);
        return file.fileName().toStdString();
    }
    QString path(const QString& name) const { return m_dir.filePath(name); }

private:
    QTemporaryDir m_dir;
};

} // namespace spanscope::testing
