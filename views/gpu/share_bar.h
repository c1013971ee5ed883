#pragma once
// One horizontal bar split into named parts in proportion to their values (ns), with a
// legend line under it: "compute 10.7 ms (0.1 %)". For the utilization of a GPU (compute,
// communication, memory, idle) and the split of a critical path. A part's tooltip gives its
// value and share. GUI thread only.

#include <QColor>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace spanscope::views {

class ShareBar : public QWidget
{
    Q_OBJECT

public:
    struct Part
    {
        QString name;
        int64_t ns = 0;
        QColor color;
        QString description; // what the part means, for its tooltip
    };

    explicit ShareBar(QWidget* parent = nullptr);

    // The parts, in order; their sum is the whole (100 %).
    void setParts(std::vector<Part> parts);
    const std::vector<Part>& parts() const { return m_parts; }
    int64_t total() const;

    // The part under x (widget coordinates), or -1.
    int partAt(int x) const;
    // "name value (share)" of each part, as the legend shows them.
    QStringList legendTexts() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    // The legend wraps: its lines at a width decide the height.
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    static constexpr int kBarHeight = 18;
    QRect barRect() const;
    // Lays out the legend at `width`: calls place(x, y, entryWidth, index) per entry;
    // returns the number of lines.
    template <typename Place>
    int layoutLegend(int width, Place place) const;
    std::vector<Part> m_parts;
};

} // namespace spanscope::views
