#include "plot_csv.h"

#include <QCoreApplication>
#include <QLocale>
#include <QSaveFile>
#include <QTextStream>
#include <functional>

namespace spanscope::views {

namespace {

// Opens `path`, lets `write` fill it, and commits it only when everything was written.
bool writeCsv(const QString& path, const std::function<void(QTextStream&)>& write, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = QCoreApplication::translate("spanscope::views", "Cannot write %1: %2")
                         .arg(path, file.errorString());
        return false;
    }
    QTextStream stream(&file);
    stream.setLocale(QLocale::c());
    stream.setRealNumberNotation(QTextStream::SmartNotation);
    stream.setRealNumberPrecision(15); // %g: plain digits below 1e15 ns
    write(stream);
    stream.flush();
    if (stream.status() != QTextStream::Ok || !file.commit()) {
        if (error)
            *error = QCoreApplication::translate("spanscope::views", "Cannot write %1: %2")
                         .arg(path, file.errorString());
        return false;
    }
    return true;
}

// RFC 4180: quote fields holding a comma, quote or line break; double inner quotes.
QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

bool writeCsvFile(const QString& path, const std::function<void(QTextStream&)>& write, QString* error)
{
    return writeCsv(path, write, error);
}

bool writeHistogramCsv(const QString& path, const HistogramBins& bins, QString* error)
{
    return writeCsv(
        path,
        [&bins](QTextStream& out) {
            out << "lower_ns,upper_ns,count\n";
            for (size_t i = 0; i < bins.counts.size(); ++i)
                out << bins.edges[i] << ',' << bins.edges[i + 1] << ','
                    << qulonglong(bins.counts[i]) << '\n';
        },
        error);
}

bool writeCdfCsv(const QString& path, const std::vector<CdfPoint>& cdf, QString* error)
{
    return writeCsv(
        path,
        [&cdf](QTextStream& out) {
            out << "duration_ns,fraction_at_most\n";
            for (const CdfPoint& point : cdf)
                out << point.ns << ',' << point.fraction << '\n';
        },
        error);
}

bool writeGpuTotalsCsv(const QString& path, const model::Capture& capture,
                       const std::vector<RegionGpuTotals>& totals, QString* error)
{
    return writeCsv(
        path,
        [&](QTextStream& out) {
            out << "region,calls,gpu_calls,wall_total_ns,gpu_total_ns,gpu_wall_ratio\n";
            for (const RegionGpuTotals& entry : totals)
                out << csvField(QString::fromStdString(capture.regionName(entry.region))) << ','
                    << qulonglong(entry.calls) << ',' << qulonglong(entry.gpuCalls) << ','
                    << qlonglong(entry.wallNs) << ',' << qlonglong(entry.gpuNs) << ','
                    << entry.ratio() << '\n';
        },
        error);
}

bool writeGpuCallsCsv(const QString& path, const model::Capture& capture,
                      std::span<const uint32_t> rows, QString* error)
{
    return writeCsv(
        path,
        [&](QTextStream& out) {
            out << "event,rank,wall_ns,gpu_ns\n";
            const auto& events = capture.events;
            if (!events.hasGpu())
                return;
            for (const uint32_t r : rows) {
                const auto& row = capture.rows[r];
                for (const uint64_t i : capture.rowEvents(row))
                    if (events.end[i] >= events.start[i] && events.gpu[i] >= 0)
                        out << qulonglong(i) << ',' << row.rank << ','
                            << qlonglong(events.end[i] - events.start[i]) << ','
                            << qlonglong(events.gpu[i]) << '\n';
            }
        },
        error);
}

bool writeAllocationBinsCsv(const QString& path, const model::AllocationBreakdown& breakdown, QString* error)
{
    return writeCsv(
        path,
        [&](QTextStream& out) {
            out << "bin_start_bytes,allocations,bytes\n";
            for (size_t bin = 0; bin < model::AllocationBreakdown::kBins; ++bin)
                if (breakdown.countByLog2[bin])
                    out << (qulonglong(1) << bin) << ',' << qulonglong(breakdown.countByLog2[bin]) << ','
                        << qlonglong(breakdown.bytesByLog2[bin]) << '\n';
        },
        error);
}

} // namespace spanscope::views
