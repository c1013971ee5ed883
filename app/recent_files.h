#pragma once
// The files opened last, newest first, at most kMaximum, kept in QSettings ("recentFiles")
// so File > Open Recent and the welcome page survive restarts. GUI thread only.

#include <QObject>
#include <QStringList>

namespace spanscope::app {

class RecentFiles : public QObject
{
    Q_OBJECT

public:
    static constexpr int kMaximum = 10;

    // Reads the list from the application's QSettings.
    explicit RecentFiles(QObject* parent = nullptr);

    QStringList files() const { return m_files; }
    // Moves `path` (made absolute) to the front, dropping the oldest past kMaximum.
    void add(const QString& path);
    void remove(const QString& path);
    void clear();

signals:
    void changed();

private:
    void save();

    QStringList m_files;
};

} // namespace spanscope::app
