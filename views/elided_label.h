#pragma once
// A one-line label for status text of any length: it never asks its window for more width
// (a long line would otherwise widen the window), shows what fits with "…" at the end, the
// whole text as its tooltip, and copies the whole text from its context menu. GUI thread only.

#include <QFrame>
#include <QString>

namespace spanscope::views {

class ElidedLabel : public QFrame
{
    Q_OBJECT

public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    void setText(const QString& text);
    QString text() const { return m_text; }
    // What is drawn now: the text, elided to the current width.
    QString shownText() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_text;
};

} // namespace spanscope::views
