#pragma once
// Colours of the regions shown together (one capture, or the runs of one comparison) that
// tell them apart: each name takes a colour of a fixed palette of 18 distinct ones — the
// one its name hashes to, so a region keeps its colour from file to file, unless a busier
// region already holds it; then the free colour next in the palette. Past 18 regions the
// rest get regionColor()'s hashed shades. GPU kinds keep their families (region_colors.h).
//
// Immutable once shared; a growing live capture gets a copy with the new names added, so
// regions already drawn never change colour.

#include "model/capture.h"
#include "model/region_kind.h"

#include <QColor>

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace spanscope::views {

class RegionPalette
{
public:
    static constexpr size_t kSlots = 18;

    // Names in priority order: earlier names win contested colours.
    void add(std::string_view name);
    // The capture's CPU regions, most calls first (then by name), that are not in yet.
    void add(const model::Capture& capture);

    QColor color(std::string_view name, bool dark) const;
    QColor color(std::string_view name, model::RegionKind kind, bool dark) const;
    // The palette slot of a name, or -1 when it has none (hashed shade).
    int slotOf(std::string_view name) const;

    // How different two colours look: CIE76 ΔE (sRGB, D65). Any two palette colours differ
    // by 30 or more.
    static double difference(const QColor& a, const QColor& b);

    // A palette of `capture`'s regions (after `base`'s, which keep their colours).
    static std::shared_ptr<const RegionPalette> of(const model::Capture& capture,
                                                   const RegionPalette* base = nullptr);

private:
    std::unordered_map<std::string, uint8_t> m_slots;
    std::array<bool, kSlots> m_used{};
};

// The palette's colour for a name when there is a palette, else regionColor()'s.
QColor regionColorIn(const RegionPalette* palette, std::string_view name, bool dark);
QColor regionColorIn(const RegionPalette* palette, std::string_view name, model::RegionKind kind, bool dark);

} // namespace spanscope::views
