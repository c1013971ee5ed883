#pragma once
// The warnings a reader attached to a capture (recoverable oddities in the file), listed
// with the object each concerns. Shows a short "no warnings" note when there are none.
// GUI thread only.

#include "model/capture.h"

#include <QWidget>
#include <vector>

class QLabel;
class QStackedLayout;
class QTreeWidget;

namespace spanscope::views {

class WarningsWidget : public QWidget
{
    Q_OBJECT

public:
    explicit WarningsWidget(QWidget* parent = nullptr);

    void setWarnings(const std::vector<model::Warning>& warnings);
    int count() const;

private:
    QStackedLayout* m_stack = nullptr;
    QLabel* m_empty = nullptr;
    QTreeWidget* m_list = nullptr;
};

} // namespace spanscope::views
