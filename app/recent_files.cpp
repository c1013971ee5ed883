#include "recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace spanscope::app {

namespace {

const QString kSettingsKey = QStringLiteral("recentFiles");

QString normalized(const QString& path)
{
    return QFileInfo(path).absoluteFilePath();
}

} // namespace

RecentFiles::RecentFiles(QObject* parent) : QObject(parent)
{
    m_files = QSettings().value(kSettingsKey).toStringList();
    m_files.removeAll(QString());
    m_files.removeDuplicates();
    while (m_files.size() > kMaximum)
        m_files.removeLast();
}

void RecentFiles::add(const QString& path)
{
    const QString file = normalized(path);
    if (!m_files.isEmpty() && m_files.front() == file)
        return;
    m_files.removeAll(file);
    m_files.prepend(file);
    while (m_files.size() > kMaximum)
        m_files.removeLast();
    save();
}

void RecentFiles::remove(const QString& path)
{
    if (m_files.removeAll(normalized(path)) > 0)
        save();
}

void RecentFiles::clear()
{
    if (m_files.isEmpty())
        return;
    m_files.clear();
    save();
}

void RecentFiles::save()
{
    QSettings().setValue(kSettingsKey, m_files);
    emit changed();
}

} // namespace spanscope::app
