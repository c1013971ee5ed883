#pragma once
// The application's colours: the system's own (what the desktop gives Qt at start), or a
// light or dark palette chosen in View › Theme. Applied to the whole application, so every
// widget, timeline and plot follows it (they react to QEvent::PaletteChange); remembered in
// the settings. GUI thread only.

#include <QString>

namespace spanscope::app {

enum class Theme { System, Light, Dark };

// Applies `theme` to the application. The first call remembers the system's palette and
// style, which System restores.
void applyTheme(Theme theme);
Theme currentTheme();

// The theme saved in the settings (System when none or unknown), and saving one.
Theme savedTheme();
void saveTheme(Theme theme);

QString themeName(Theme theme); // "system", "light", "dark": the settings' values

} // namespace spanscope::app
