#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

#include <optional>

namespace spanscope::app {

namespace {

constexpr const char* kThemeKey = "appearance/theme";

struct SystemLook
{
    QPalette palette;
    QString style;
};

std::optional<SystemLook>& systemLook()
{
    static std::optional<SystemLook> look;
    return look;
}

Theme& current()
{
    static Theme theme = Theme::System;
    return theme;
}

QPalette darkPalette()
{
    // Greys a little lifted from black, so panes, tables and plots keep their edges.
    QPalette p;
    const QColor window(45, 47, 51), base(33, 35, 38), text(225, 227, 230), mid(70, 73, 78);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(40, 42, 46));
    p.setColor(QPalette::ToolTipBase, QColor(60, 63, 68));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(140, 143, 148));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 110, 110));
    p.setColor(QPalette::Light, QColor(80, 83, 88));
    p.setColor(QPalette::Midlight, QColor(62, 65, 70));
    p.setColor(QPalette::Mid, mid);
    p.setColor(QPalette::Dark, QColor(25, 26, 28));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    p.setColor(QPalette::Highlight, QColor(42, 110, 190));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(110, 170, 255));
    p.setColor(QPalette::LinkVisited, QColor(170, 140, 255));
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(125, 128, 133));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    return p;
}

} // namespace

void applyTheme(Theme theme)
{
    if (!systemLook())
        systemLook() = SystemLook{QApplication::palette(), QApplication::style()->name()};
    current() = theme;
    if (theme == Theme::System) {
        QApplication::setStyle(QStyleFactory::create(systemLook()->style));
        QApplication::setPalette(systemLook()->palette);
        return;
    }
    // Fusion draws every control from the palette, so a chosen palette reaches all of it
    // (platform styles may draw some controls in the desktop's colours regardless).
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(theme == Theme::Dark ? darkPalette() : QApplication::style()->standardPalette());
}

Theme currentTheme()
{
    return current();
}

QString themeName(Theme theme)
{
    switch (theme) {
    case Theme::System: break;
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

Theme savedTheme()
{
    const QString name = QSettings().value(QLatin1String(kThemeKey)).toString();
    for (const Theme theme : {Theme::Light, Theme::Dark})
        if (name == themeName(theme))
            return theme;
    return Theme::System;
}

void saveTheme(Theme theme)
{
    QSettings().setValue(QLatin1String(kThemeKey), themeName(theme));
}

} // namespace spanscope::app
