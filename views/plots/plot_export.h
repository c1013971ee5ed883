#pragma once
// Saving a plot as an image: PNG (raster, at the screen's pixel ratio), PDF and SVG
// (vector), chosen by the file's suffix. GUI thread only (QCustomPlot renders).

#include <QString>
#include <QStringList>

class QCustomPlot;

namespace spanscope::views {

// The suffixes savePlotImage() understands, lower case, PNG first.
QStringList plotImageSuffixes();

// Renders `plot` into `path` at `width` x `height` pixels (0: the plot's current size).
// Returns false and sets `error` on an unknown suffix or a write failure.
bool savePlotImage(QCustomPlot* plot, const QString& path, int width = 0, int height = 0,
                   QString* error = nullptr);

} // namespace spanscope::views
