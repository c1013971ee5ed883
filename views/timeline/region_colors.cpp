#include "region_colors.h"

#include <cstdint>

namespace spanscope::views {

QColor regionColor(std::string_view name, bool dark)
{
    // FNV-1a: stable across platforms and Qt versions, unlike qHash (seeded per process).
    uint32_t hash = 2166136261u;
    for (const char c : name) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    // Finalize so names differing in their last letters land far apart on the wheel.
    hash ^= hash >> 16;
    hash *= 0x7feb352du;
    hash ^= hash >> 15;
    hash *= 0x846ca68bu;
    hash ^= hash >> 16;
    const int hue = int(hash % 360);
    const int saturation = 110 + int((hash >> 9) % 60);
    const int value = dark ? 150 + int((hash >> 17) % 40) : 200 + int((hash >> 17) % 45);
    return QColor::fromHsv(hue, saturation, value);
}

QColor textColorOn(const QColor& background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(20, 20, 20) : QColor(245, 245, 245);
}

} // namespace spanscope::views
