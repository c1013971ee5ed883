#include "lane_layout_memory.h"

#include "views/timeline/timeline_view.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFileInfo>
#include <QSettings>
#include <QVariantMap>

#include <algorithm>
#include <vector>

namespace spanscope::app {

namespace {

constexpr auto kSettingsKey = "timeline/laneLayouts";

// Entries by a hash of their key (settings keys may not hold every character a path can),
// each {"key", "layout" (JSON), "used" (ms since the epoch)}.
QVariantMap entries()
{
    return QSettings().value(QLatin1String(kSettingsKey)).toMap();
}

QString entryName(const QString& key)
{
    return QString::fromLatin1(QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha1).toHex());
}

void save(QVariantMap all)
{
    if (all.size() > kMaximumLaneLayouts) { // keep those used last
        std::vector<std::pair<qint64, QString>> used;
        for (auto it = all.begin(); it != all.end(); ++it)
            used.push_back({it.value().toMap().value(QStringLiteral("used")).toLongLong(), it.key()});
        std::sort(used.begin(), used.end());
        for (size_t i = 0; i + kMaximumLaneLayouts < used.size(); ++i)
            all.remove(used[i].second);
    }
    QSettings().setValue(QLatin1String(kSettingsKey), all);
}

} // namespace

QString fileLayoutKey(const QString& path)
{
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    return QStringLiteral("file:") + (canonical.isEmpty() ? info.absoluteFilePath() : canonical);
}

QString liveLayoutKey(const QString& commandLine)
{
    return QStringLiteral("live:") + commandLine;
}

std::optional<views::LaneLayout> rememberedLaneLayout(const QString& key)
{
    const QVariantMap entry = entries().value(entryName(key)).toMap();
    if (entry.value(QStringLiteral("key")).toString() != key)
        return std::nullopt; // none (or, never seen, a hash shared with another key)
    return views::LaneLayout::fromJson(entry.value(QStringLiteral("layout")).toByteArray());
}

void rememberLaneLayout(const QString& key, const views::LaneLayout& layout)
{
    QVariantMap all = entries();
    QVariantMap entry;
    entry.insert(QStringLiteral("key"), key);
    entry.insert(QStringLiteral("layout"), layout.toJson());
    entry.insert(QStringLiteral("used"), QDateTime::currentMSecsSinceEpoch());
    all.insert(entryName(key), entry);
    save(std::move(all));
}

void forgetLaneLayout(const QString& key)
{
    QVariantMap all = entries();
    if (all.remove(entryName(key)) > 0)
        save(std::move(all));
}

void watchLaneLayout(views::TimelineView* timeline, const QString& key)
{
    if (auto layout = rememberedLaneLayout(key))
        timeline->setRememberedLayout(std::move(*layout));
    QObject::connect(timeline, &views::TimelineView::laneLayoutChosen, timeline,
                     [timeline, key] { rememberLaneLayout(key, timeline->laneLayout()); });
    QObject::connect(timeline, &views::TimelineView::laneLayoutForgotten, timeline,
                     [key] { forgetLaneLayout(key); });
}

} // namespace spanscope::app
