#pragma once
// The one call selected in the timeline: where it ran, when and for how long, the calls
// enclosing it, and what links it to other work. A kernel, copy or memset shows every
// attribute the source recorded (grid, block, registers, shared memory; bytes, direction,
// bandwidth), the CPU call that launched it with that call's stack, and the launch
// latency; a CPU call shows the GPU work it launched and the span it covered on the GPU.
// Every linked call is a link that selects it. Reads one immutable snapshot; builds its
// text in O(depth log n + flows of the call). GUI thread only.

#include "model/capture.h"
#include "model/tables/args_fields.h"
#include "model/timeline/timeline_index.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QTextBrowser;

namespace spanscope::views {

class CallDetailsWidget : public QWidget
{
    Q_OBJECT

public:
    explicit CallDetailsWidget(QWidget* parent = nullptr);

    void setCapture(std::shared_ptr<const model::Capture> capture, std::shared_ptr<const model::TimelineIndex> index);
    void showCall(uint32_t event);
    void clear();
    std::optional<uint32_t> call() const { return m_event; }
    // The text shown, for tests.
    QString plainText() const;

signals:
    void callClicked(quint32 event); // a linked call was clicked

private:
    QString html(uint32_t event) const;
    QString callLink(uint32_t event) const;
    QString stackHtml(uint32_t event) const;
    QString gpuHtml(uint32_t event) const;
    QString flowsHtml(uint32_t event) const;
    // The call's args as fields (empty without args); the launch of GPU work (kNoEvent: none).
    std::vector<model::ArgsField> argsOf(uint32_t event) const;
    uint32_t launchOf(uint32_t event) const;

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::TimelineIndex> m_index;
    std::optional<uint32_t> m_event;
    QLabel* m_placeholder = nullptr;
    QTextBrowser* m_text = nullptr;
};

} // namespace spanscope::views
