#pragma once
// The data behind each plot as CSV files (comma-separated, a header line, numbers in the
// C locale, ns as integers where they are integers), written atomically through
// QSaveFile. Functions of a path so the export menu and the tests share them. Each
// returns false and sets `error` (when given) to a sentence naming the file on failure.
// Any thread.

#include "gpu_wall_data.h"
#include "histogram_bins.h"
#include "model/capture.h"
#include "model/stats/allocation_stats.h"

#include <QString>
#include <QTextStream>
#include <functional>
#include <span>
#include <vector>

namespace spanscope::views {

// lower_ns,upper_ns,count: one line per bin.
// Any CSV a view writes: `write` fills the stream (C locale, numbers to 15 digits); the file
// is replaced only once everything was written.
bool writeCsvFile(const QString& path, const std::function<void(QTextStream&)>& write, QString* error = nullptr);
bool writeHistogramCsv(const QString& path, const HistogramBins& bins, QString* error = nullptr);

// duration_ns,fraction_at_most: one line per CDF step.
bool writeCdfCsv(const QString& path, const std::vector<CdfPoint>& cdf, QString* error = nullptr);

// region,calls,gpu_calls,wall_total_ns,gpu_total_ns,gpu_wall_ratio: one line per region.
bool writeGpuTotalsCsv(const QString& path, const model::Capture& capture,
                       const std::vector<RegionGpuTotals>& totals, QString* error = nullptr);

// event,rank,wall_ns,gpu_ns: every closed call of `rows` with a GPU value, unthinned.
bool writeGpuCallsCsv(const QString& path, const model::Capture& capture,
                      std::span<const uint32_t> rows, QString* error = nullptr);

// bin_start_bytes,allocations,bytes: one line per log2 size bin that holds allocations.
bool writeAllocationBinsCsv(const QString& path, const model::AllocationBreakdown& breakdown,
                            QString* error = nullptr);

} // namespace spanscope::views
