#pragma once
// Remembers the lane layout the user chose for a capture between sessions: per file (its
// canonical path) and per live program (its command line), in QSettings
// ("timeline/laneLayouts", JSON per entry, the kMaximum used last). A timeline watched here
// takes the remembered layout before its first capture, and every layout the user chooses
// in it is remembered (the default layout, asked for, forgets it). GUI thread only.

#include <QString>

#include <optional>

namespace spanscope::views {
class TimelineView;
struct LaneLayout;
} // namespace spanscope::views

namespace spanscope::app {

inline constexpr int kMaximumLaneLayouts = 64;

// The key of a file's layout ("file:" and its canonical path) and a live program's
// ("live:" and its command line).
QString fileLayoutKey(const QString& path);
QString liveLayoutKey(const QString& commandLine);

std::optional<views::LaneLayout> rememberedLaneLayout(const QString& key);
void rememberLaneLayout(const QString& key, const views::LaneLayout& layout);
void forgetLaneLayout(const QString& key);

// Gives `timeline` the layout remembered under `key` and remembers what the user chooses in it.
void watchLaneLayout(views::TimelineView* timeline, const QString& key);

} // namespace spanscope::app
