#include "plot_frame.h"

#include "plot_export.h"

#include <QAction>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QPointer>
#include <QStackedLayout>
#include <QToolButton>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

// Characters file systems or shells dislike become '-': region names hold '/', ':' etc.
QString safeFileName(const QString& name)
{
    QString safe;
    for (const QChar c : name)
        safe += c.isLetterOrNumber() || c == QLatin1Char('.') || c == QLatin1Char('_') ||
                        c == QLatin1Char('-')
                    ? c
                    : QLatin1Char('-');
    return safe.left(120);
}

// Room for one tick label across (a duration like "150 µs" and a gap) and up.
constexpr int kPixelsPerTickAcross = 95;
constexpr int kPixelsPerTickUp = 40;

} // namespace

QLabel* createPlotTitle()
{
    auto* title = new QLabel;
    title->setTextFormat(Qt::PlainText);
    title->setWordWrap(true);
    title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    title->setContentsMargins(6, 4, 6, 0);
    return title;
}

PlotFrame::PlotFrame(QWidget* parent) : QWidget(parent)
{
    m_stack = new QStackedLayout(this);
    m_plot = new QCustomPlot;
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    m_plot->setPlottingHint(QCP::phCacheLabels, true);
    // A fixed floor instead of the layout's hint (which grows with the legend): a plot
    // never asks its window for more room; legends below wrap to its width instead.
    m_plot->setMinimumSize(160, 120);
    m_message = new QLabel;
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setEnabled(false);
    m_message->setObjectName(QStringLiteral("plotMessage"));
    m_stack->addWidget(m_plot);
    m_stack->addWidget(m_message);

    m_saveImage = new QAction(tr("Save image…"), this);
    m_saveImage->setToolTip(tr("Save the plot as PNG, PDF or SVG"));
    m_saveCsv = new QAction(tr("Save data as CSV…"), this);
    m_saveCsv->setToolTip(tr("Save the numbers behind the plot as comma-separated values"));
    connect(m_saveImage, &QAction::triggered, this, &PlotFrame::saveImage);
    connect(m_saveCsv, &QAction::triggered, this, &PlotFrame::saveCsv);
    connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& position) {
        QMenu menu(this);
        menu.addActions(exportActions());
        menu.exec(m_plot->mapToGlobal(position));
    });
    // Before each replot, so the ticks of this frame already fit the plot's size.
    connect(m_plot, &QCustomPlot::beforeReplot, this, &PlotFrame::fitTickCounts);
    // The tick counts were fitted to the axis rect of the previous layout; when the layout
    // just changed its size (a resize), fit again and replot once more.
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] {
        if (m_plot->axisRect()->rect().size() != m_fittedSize)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    applyPalette();
    updateActions();
}

PlotFrame::~PlotFrame() = default;

void PlotFrame::showPlot()
{
    m_stack->setCurrentWidget(m_plot);
    m_message->clear();
    updateActions();
}

void PlotFrame::showMessage(const QString& text)
{
    m_message->setText(text);
    m_stack->setCurrentWidget(m_message);
    updateActions();
}

bool PlotFrame::plotShown() const
{
    return m_stack->currentWidget() == m_plot;
}

QString PlotFrame::message() const
{
    return plotShown() ? QString() : m_message->text();
}

void PlotFrame::setExportName(const QString& name)
{
    m_exportName = safeFileName(name);
}

void PlotFrame::setCsvWriter(CsvWriter writer)
{
    m_csvWriter = std::move(writer);
    updateActions();
}

QList<QAction*> PlotFrame::exportActions() const
{
    return {m_saveImage, m_saveCsv};
}

bool PlotFrame::darkPalette() const
{
    return palette().color(QPalette::Base).lightness() < 128;
}

void PlotFrame::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        emit paletteApplied();
        m_plot->replot();
    }
}

void PlotFrame::applyPalette()
{
    const QPalette& colors = palette();
    const QColor base = colors.color(QPalette::Base);
    const QColor text = colors.color(QPalette::Text);
    QColor axisLine = text;
    axisLine.setAlphaF(0.6);
    QColor gridLine = text;
    gridLine.setAlphaF(0.12);
    m_plot->setBackground(base);
    for (QCPAxis* axis : m_plot->axisRect()->axes()) {
        axis->setBasePen(QPen(axisLine, 1));
        axis->setTickPen(QPen(axisLine, 1));
        axis->setSubTickPen(QPen(axisLine, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(gridLine, 1, Qt::SolidLine));
        axis->grid()->setSubGridPen(Qt::NoPen);
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    m_plot->legend->setBrush(base);
    m_plot->legend->setTextColor(text);
    m_plot->legend->setBorderPen(QPen(gridLine, 1));
}

QToolButton* PlotFrame::createExportButton(const QString& toolTip)
{
    auto* button = new QToolButton;
    button->setText(tr("Export"));
    button->setToolTip(toolTip);
    button->setPopupMode(QToolButton::InstantPopup);
    button->setAutoRaise(true);
    auto* menu = new QMenu(button);
    menu->addActions(exportActions());
    button->setMenu(menu);
    return button;
}

void PlotFrame::fitTickCounts()
{
    const QRect area = m_plot->axisRect()->rect();
    m_fittedSize = area.size();
    fitLegendColumns();
    const int width = area.width() > 0 ? area.width() : m_plot->width();
    const int height = area.height() > 0 ? area.height() : m_plot->height();
    for (QCPAxis* axis : m_plot->axisRect()->axes())
        axis->ticker()->setTickCount(std::max(2, axis->orientation() == Qt::Horizontal
                                                     ? width / kPixelsPerTickAcross
                                                     : height / kPixelsPerTickUp));
}

void PlotFrame::updateActions()
{
    m_saveImage->setEnabled(plotShown());
    m_saveCsv->setEnabled(plotShown() && m_csvWriter != nullptr);
}

void PlotFrame::saveImage()
{
    // The plot may be gone by the time app/ has a path (its tab closed behind the dialog).
    QPointer<QCustomPlot> plot = m_plot;
    emit saveRequested(
        {tr("Save Plot Image"),
         {tr("PNG image (*.png)"), tr("PDF document (*.pdf)"), tr("SVG drawing (*.svg)")},
         plotImageSuffixes(),
         m_exportName,
         [plot](const QString& path, QString* error) {
             if (!plot) {
                 *error = tr("The plot was closed before it could be saved.");
                 return false;
             }
             return savePlotImage(plot, path, 0, 0, error);
         }});
}

void PlotFrame::saveCsv()
{
    if (!m_csvWriter)
        return;
    // The writer reads the plot's owner, which may be gone once app/ has a path.
    emit saveRequested({tr("Save Plot Data"), {tr("CSV file (*.csv)")}, {QStringLiteral("csv")},
                        m_exportName,
                        [frame = QPointer<PlotFrame>(this), writer = m_csvWriter](const QString& path, QString* error) {
                            if (!frame) {
                                *error = tr("The plot was closed before its data could be saved.");
                                return false;
                            }
                            return writer(path, error);
                        }});
}

void PlotFrame::setRegionPalette(std::shared_ptr<const RegionPalette> palette)
{
    if (palette == m_regionPalette)
        return;
    m_regionPalette = std::move(palette);
    emit paletteApplied();
}

QColor PlotFrame::regionColor(std::string_view name) const
{
    return regionColorIn(m_regionPalette.get(), name, darkPalette());
}

void PlotFrame::placeLegendBelow(int columns)
{
    QCPLegend* legend = m_plot->legend;
    legend->setVisible(true);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_legendColumns = std::max(1, columns);
    QFont font = legend->font(); // a little smaller than the axes: more entries to a line
    font.setPointSizeF(font.pointSizeF() * 0.9);
    legend->setFont(font);
    legend->setWrap(m_legendColumns);
    if (legend->layout() == m_plot->plotLayout())
        return; // already there
    m_plot->plotLayout()->addElement(1, 0, legend); // takes it out of the axis rect's inset
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
}

void PlotFrame::fitLegendColumns()
{
    // As many columns as fit the plot's width (up to the asked number), so the legend
    // wraps instead of asking the window for more width.
    QCPLegend* legend = m_plot->legend;
    if (m_legendColumns <= 0 || legend->layout() != m_plot->plotLayout() || legend->itemCount() == 0)
        return;
    int widest = 1;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem* item = legend->item(i)) // grid cells may be empty
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    const int columns = std::clamp(m_plot->width() / widest, 1, m_legendColumns);
    if (columns != legend->wrap()) {
        legend->setWrap(columns);
        legend->setFillOrder(legend->fillOrder(), true); // lays the items out again
    }
}

} // namespace spanscope::views
