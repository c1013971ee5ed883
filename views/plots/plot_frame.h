#pragma once
// The frame every plot of the viewer sits in: a QCustomPlot, or a centred sentence in its
// place when there is nothing to plot (so an empty plot never looks like a broken one); the
// plot's colours follow the widget palette; a context menu saves the plot as an image
// (PNG, PDF, SVG) and its data as CSV, through a SaveRequest that app/ answers; tick
// density follows the plot's size. GUI thread only.

#include "views/save_request.h"
#include "views/timeline/region_palette.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <string_view>

class QAction;
class QCustomPlot;
class QLabel;
class QStackedLayout;

class QToolButton;

namespace spanscope::views {

// The one-line heading above a plot: plain text that wraps onto a second line rather than
// being cut, and never asks for width (long region names must not widen the tab).
QLabel* createPlotTitle();

class PlotFrame : public QWidget
{
    Q_OBJECT

public:
    // Writes the plot's data to a path; false and a sentence in `error` on failure.
    using CsvWriter = std::function<bool(const QString& path, QString* error)>;

    explicit PlotFrame(QWidget* parent = nullptr);
    ~PlotFrame() override;

    QCustomPlot* plot() const { return m_plot; }

    void showPlot();
    void showMessage(const QString& text);
    bool plotShown() const;
    // The sentence shown instead of the plot; empty while the plot is shown.
    QString message() const;

    // The file name, without suffix, save requests suggest ("histogram-solver.step").
    void setExportName(const QString& name);
    // What "Save data as CSV…" writes; the action is disabled without one.
    void setCsvWriter(CsvWriter writer);
    // "Save image…" and "Save data as CSV…", for a tool button next to the plot.
    QList<QAction*> exportActions() const;
    // A tool button ("Export") whose menu holds exportActions(), for the plot's title bar.
    QToolButton* createExportButton(const QString& toolTip);

    // Shows the legend in a row of its own under the plot, `columns` entries to a line, so
    // it never covers the data (a legend inside a small plot hides most of it).
    void placeLegendBelow(int columns);

    // True when the palette is dark (plots pick region colours to match).
    bool darkPalette() const;
    // The colours of regions, shared with the timeline of the same capture (null: hashed
    // shades); setting it replots through paletteApplied().
    void setRegionPalette(std::shared_ptr<const RegionPalette> palette);
    QColor regionColor(std::string_view name) const;

signals:
    // The palette changed and the plot's colours were reapplied; owners recolour data.
    void paletteApplied();
    // The user chose "Save image…" or "Save data as CSV…" (CSV: only with a writer).
    void saveRequested(const spanscope::views::SaveRequest& request);

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyPalette();
    void fitTickCounts();
    void fitLegendColumns();
    void updateActions();
    void saveImage();
    void saveCsv();

    QStackedLayout* m_stack = nullptr;
    QCustomPlot* m_plot = nullptr;
    QLabel* m_message = nullptr;
    QAction* m_saveImage = nullptr;
    QAction* m_saveCsv = nullptr;
    QString m_exportName;
    CsvWriter m_csvWriter;
    QSize m_fittedSize; // axis rect size the tick counts were last fitted to
    std::shared_ptr<const RegionPalette> m_regionPalette;
    int m_legendColumns = 0; // placeLegendBelow()'s columns; 0 = the legend is where the plot put it
};

} // namespace spanscope::views
