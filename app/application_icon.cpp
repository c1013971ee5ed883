#include "application_icon.h"

#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

// Q_INIT_RESOURCE must be called outside any namespace; the resources live in the static
// spanscope_gui library, which the linker would otherwise leave them out of.
static void initResources()
{
    Q_INIT_RESOURCE(spanscope);
}

namespace spanscope::app {

QIcon applicationIcon()
{
    initResources();
    // Rendered here rather than through Qt's SVG icon-engine plugin, which a minimal
    // Qt installation may lack; the sizes are those of the hicolor PNGs.
    QSvgRenderer renderer(QStringLiteral(":/icons/spanscope.svg"));
    QIcon icon;
    for (const int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        renderer.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace spanscope::app
