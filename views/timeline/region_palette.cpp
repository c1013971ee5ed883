#include "region_palette.h"

#include "region_colors.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace spanscope::views {

namespace {

// Eighteen colours picked greedily for the largest smallest difference between any two
// (CIE76 ΔE ≥ 30 here; ~10 is plainly different side by side), among mid-light colours
// that black text reads on and that stay clear of the grey of folded blocks. Light palette
// values; the dark palette draws them a little darker.
constexpr QRgb kPalette[RegionPalette::kSlots] = {
    0x63a3db, 0x4ef54e, 0xf54e4e, 0xf54ef5, 0xf5e08e, 0x4ef5d4, 0xf58ec5, 0x6e6ef5, 0x599e47,
    0xbd836d, 0x5c9e8c, 0xb4db46, 0xf59c4e, 0x986dbd, 0x6ef592, 0x9e8933, 0x4edff5, 0xf54e86,
};

uint32_t slotHash(std::string_view name)
{
    // FNV-1a, as region_colors.cpp: stable across runs and platforms.
    uint32_t hash = 2166136261u;
    for (const char c : name) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    return hash ^ (hash >> 15);
}

} // namespace

void RegionPalette::add(std::string_view name)
{
    if (m_slots.size() >= kSlots || m_slots.count(std::string(name)))
        return;
    size_t slot = slotHash(name) % kSlots;
    while (m_used[slot])
        slot = (slot + 1) % kSlots;
    m_used[slot] = true;
    m_slots.emplace(std::string(name), uint8_t(slot));
}

void RegionPalette::add(const model::Capture& capture)
{
    std::vector<uint64_t> calls(capture.regionNames.size(), 0);
    for (const auto& row : capture.rows)
        calls[row.region] += row.aggregate ? row.aggregate->count : row.count;
    std::vector<uint32_t> order;
    for (uint32_t region = 0; region < calls.size(); ++region)
        if (capture.regionKind(region) == model::RegionKind::Cpu)
            order.push_back(region);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return calls[a] != calls[b] ? calls[a] > calls[b] : capture.regionName(a) < capture.regionName(b);
    });
    for (const uint32_t region : order)
        add(capture.regionName(region));
}

int RegionPalette::slotOf(std::string_view name) const
{
    const auto it = m_slots.find(std::string(name));
    return it == m_slots.end() ? -1 : int(it->second);
}

QColor RegionPalette::color(std::string_view name, bool dark) const
{
    const int slot = slotOf(name);
    if (slot < 0)
        return regionColor(name, dark);
    const QColor color = QColor::fromRgb(kPalette[slot]);
    return dark ? color.darker(125) : color;
}

QColor RegionPalette::color(std::string_view name, model::RegionKind kind, bool dark) const
{
    return kind == model::RegionKind::Cpu ? color(name, dark) : regionColor(name, kind, dark);
}

std::shared_ptr<const RegionPalette> RegionPalette::of(const model::Capture& capture, const RegionPalette* base)
{
    auto palette = base ? std::make_shared<RegionPalette>(*base) : std::make_shared<RegionPalette>();
    palette->add(capture);
    return palette;
}

double RegionPalette::difference(const QColor& a, const QColor& b)
{
    auto lab = [](const QColor& c) {
        auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        const double r = linear(c.redF()), g = linear(c.greenF()), bl = linear(c.blueF());
        const double x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047;
        const double y = 0.2126 * r + 0.7152 * g + 0.0722 * bl;
        const double z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883;
        auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
        return std::array<double, 3>{116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
    };
    const auto p = lab(a), q = lab(b);
    return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

QColor regionColorIn(const RegionPalette* palette, std::string_view name, bool dark)
{
    return palette ? palette->color(name, dark) : regionColor(name, dark);
}

QColor regionColorIn(const RegionPalette* palette, std::string_view name, model::RegionKind kind, bool dark)
{
    return palette ? palette->color(name, kind, dark) : regionColor(name, kind, dark);
}

} // namespace spanscope::views
