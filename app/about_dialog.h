#pragma once
// Help > About: the icon, version and purpose of spanscope, and a table of what this build
// is made of (build_info.h) that a Copy button puts on the clipboard for bug reports.

#include <QDialog>

class QTableWidget;

namespace spanscope::app {

class AboutDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AboutDialog(QWidget* parent = nullptr);

    // The table of components and versions (for tests).
    QTableWidget* componentTable() const { return m_table; }

private:
    QTableWidget* m_table = nullptr;
};

} // namespace spanscope::app
