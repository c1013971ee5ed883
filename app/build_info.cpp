#include "build_info.h"

#include "app/install_paths.h"
#include "live_tab.h"
#include "model/io/library_versions.h"
#include "spanscope_version.h"

#include <QDir>
#include <QFileInfo>
#include <qcustomplot.h>

namespace spanscope::app {

namespace {

// libcupti is the job's to load (dlopen, when the driver starts the injection): the
// viewer can only say whether the collector was built with its CUDA half.
QString cudaCaptureState()
{
#if SPANSCOPE_HAS_COLLECTOR && SPANSCOPE_HAS_CUPTI
    return QObject::tr("built: the collector records CUDA jobs through CUPTI (libcupti is loaded in the "
                       "job at run time: the CUDA toolkit's, or SPANSCOPE_CUPTI)");
#elif SPANSCOPE_HAS_COLLECTOR
    return QObject::tr("not in this build: CUPTI's headers were not found when it was built; live "
                       "capture records NVTX ranges only");
#else
    return QObject::tr("not in this build: the collector was not built");
#endif
}

QString nvtxCaptureState()
{
#if SPANSCOPE_HAS_COLLECTOR
    const QString run = spanscopeRunPath();
    if (!QFileInfo(run).isExecutable())
        return QObject::tr("unavailable: %1 is missing (set SPANSCOPE_RUN to its path)").arg(run);
    const QString runDir = QFileInfo(run).absolutePath() + QLatin1Char('/');
    const std::vector<std::string> candidates = collectorCandidates(runDir.toStdString());
    const std::string collector = firstExisting(candidates, false);
    if (collector.empty())
        return QObject::tr("unavailable: the collector library is not at %1 (set "
                           "SPANSCOPE_COLLECTOR to its path)")
            .arg(QString::fromStdString(candidates.empty() ? std::string() : candidates.front()));
    return QObject::tr("available (%1)").arg(QDir::cleanPath(QString::fromStdString(collector)));
#else
    return QObject::tr("not in this build: the NVTX 3 headers were not found when it was built");
#endif
}

} // namespace

QList<BuildInfoRow> buildInfo()
{
    QList<BuildInfoRow> rows;
    rows.append({QStringLiteral("spanscope"), QStringLiteral(SPANSCOPE_VERSION)});
    QString qt = QString::fromLatin1(qVersion());
    if (qt != QLatin1String(QT_VERSION_STR))
        qt += QObject::tr(" (built with %1)").arg(QLatin1String(QT_VERSION_STR));
    rows.append({QStringLiteral("Qt"), qt});
    rows.append({QStringLiteral("QCustomPlot"), QStringLiteral(QCUSTOMPLOT_VERSION_STR)});
    for (const auto& [library, version] : io::fileLibraryVersions())
        rows.append({QString::fromStdString(library), QString::fromStdString(version)});
    rows.append({QObject::tr("NVTX capture"), nvtxCaptureState()});
    rows.append({QObject::tr("CUDA activity capture"), cudaCaptureState()});
    return rows;
}

QString buildInfoText(const QList<BuildInfoRow>& rows)
{
    QString text;
    for (const BuildInfoRow& row : rows)
        text += row.component + QStringLiteral(": ") + row.value + QLatin1Char('\n');
    return text;
}

} // namespace spanscope::app
