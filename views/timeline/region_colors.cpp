#include "region_colors.h"

#include <cstdint>

namespace spanscope::views {

namespace {

// FNV-1a: stable across platforms and Qt versions, unlike qHash (seeded per process),
// finalized so names differing in their last letters land far apart.
uint32_t nameHash(std::string_view name)
{
    uint32_t hash = 2166136261u;
    for (const char c : name) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    hash ^= hash >> 16;
    hash *= 0x7feb352du;
    hash ^= hash >> 15;
    hash *= 0x846ca68bu;
    hash ^= hash >> 16;
    return hash;
}

} // namespace

QColor regionColor(std::string_view name, model::RegionKind kind, bool dark)
{
    const uint32_t hash = nameHash(name);
    const int shade = int((hash >> 17) % 40);
    switch (kind) {
    case model::RegionKind::Cpu: break;
    case model::RegionKind::Kernel:
        return QColor::fromHsv(140 + int(hash % 60), 150 + int((hash >> 9) % 70), dark ? 140 + shade : 170 + shade);
    case model::RegionKind::Memcpy:
        return QColor::fromHsv(28 + int(hash % 14), 200, dark ? 190 + shade / 2 : 225 + shade / 2);
    case model::RegionKind::Memset:
        return QColor::fromHsv(275 + int(hash % 15), 120, dark ? 170 + shade / 2 : 200 + shade / 2);
    case model::RegionKind::GpuRange:
        return dark ? QColor(70, 90, 120) : QColor(200, 215, 235);
    }
    return regionColor(name, dark);
}

QColor flowColor(model::FlowKind kind, bool dark)
{
    switch (kind) {
    case model::FlowKind::Launch: return dark ? QColor(255, 150, 60) : QColor(215, 95, 0);
    case model::FlowKind::ForwardBackward: return dark ? QColor(200, 140, 255) : QColor(130, 50, 190);
    case model::FlowKind::Sync: return dark ? QColor(255, 110, 110) : QColor(200, 40, 40);
    case model::FlowKind::User: break;
    }
    return dark ? QColor(200, 200, 200) : QColor(90, 90, 90);
}

QColor regionColor(std::string_view name, bool dark)
{
    const uint32_t hash = nameHash(name);
    const int hue = int(hash % 360);
    const int saturation = 110 + int((hash >> 9) % 60);
    const int value = dark ? 150 + int((hash >> 17) % 40) : 200 + int((hash >> 17) % 45);
    return QColor::fromHsv(hue, saturation, value);
}

QColor markColor(bool dark)
{
    return dark ? QColor(110, 190, 255) : QColor(20, 90, 200);
}

QColor textColorOn(const QColor& background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(20, 20, 20) : QColor(245, 245, 245);
}

} // namespace spanscope::views
