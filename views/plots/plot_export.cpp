#include "plot_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("spanscope::views", text);
}

bool saveSvg(QCustomPlot* plot, const QString& path, int width, int height)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(plot->windowTitle());
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    // As QCustomPlot::savePdf does: vector output, no cached pixmaps of tick labels.
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    plot->toPainter(&painter, width, height);
    return painter.end();
}

} // namespace

QStringList plotImageSuffixes()
{
    return {QStringLiteral("png"), QStringLiteral("pdf"), QStringLiteral("svg")};
}

bool savePlotImage(QCustomPlot* plot, const QString& path, int width, int height, QString* error)
{
    if (width <= 0 || height <= 0) {
        width = plot->width();
        height = plot->height();
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool saved = false;
    if (suffix == QLatin1String("png")) {
        // Keep the pixel ratio of the screen so a HiDPI export is as sharp as the plot.
        saved = plot->savePng(path, width, height, plot->devicePixelRatioF());
    } else if (suffix == QLatin1String("pdf")) {
        saved = plot->savePdf(path, width, height);
    } else if (suffix == QLatin1String("svg")) {
        saved = saveSvg(plot, path, width, height);
    } else {
        if (error)
            *error = tr("Cannot save %1: images are saved as PNG, PDF or SVG.").arg(path);
        return false;
    }
    if (!saved && error)
        *error = tr("Cannot write %1.").arg(path);
    return saved;
}

} // namespace spanscope::views
