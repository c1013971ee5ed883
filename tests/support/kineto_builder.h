#pragma once
// Small Kineto (PyTorch profiler) traces written by a test, event by event, in ns (written
// as the decimal µs Kineto uses): CPU ops and runtime calls on process 100, GPU work on the
// device's "process" (pid = device, tid = stream) as Kineto lays it out.

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <string>

namespace spanscope::testing {

class KinetoTrace
{
public:
    static constexpr int kCpuPid = 100; // devices are pids 0, 1, ... as Kineto writes them

    KinetoTrace& op(const char* name, int64_t ts, int64_t dur, int tid = 1)
    {
        return add(event("cpu_op", name, kCpuPid, tid, ts, dur, ""));
    }
    // A runtime (or, with cat "cuda_driver", driver) call with its correlation id.
    KinetoTrace& call(const char* name, int64_t ts, int64_t dur, int64_t correlation, int tid = 1,
                      const char* cat = "cuda_runtime")
    {
        return add(event(cat, name, kCpuPid, tid, ts, dur, "\"correlation\": " + std::to_string(correlation)));
    }
    KinetoTrace& kernel(const char* name, int64_t ts, int64_t dur, int64_t stream, int64_t correlation, int device = 0)
    {
        return add(gpu("kernel", name, ts, dur, stream, correlation, device, ""));
    }
    KinetoTrace& memcpy(int64_t ts, int64_t dur, int64_t stream, int64_t correlation, int device = 0)
    {
        return add(gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", ts, dur, stream, correlation, device,
                       ", \"bytes\": 4096"));
    }
    KinetoTrace& memset(int64_t ts, int64_t dur, int64_t stream, int64_t correlation, int device = 0)
    {
        return add(gpu("gpu_memset", "Memset (Device)", ts, dur, stream, correlation, device, ", \"bytes\": 64"));
    }
    // A cuda_sync record ("Stream Sync", "Context Sync", "Event Sync", "Stream Wait Event").
    KinetoTrace& sync(const char* kind, int64_t ts, int64_t dur, int64_t stream, int64_t correlation,
                      int64_t waitOnStream = -1, int device = 0)
    {
        std::string args = "\"cuda_sync_kind\": \"" + std::string(kind) + "\", \"stream\": " + std::to_string(stream) +
                           ", \"correlation\": " + std::to_string(correlation) + ", \"device\": " +
                           std::to_string(device);
        if (waitOnStream >= 0)
            args += ", \"wait_on_stream\": " + std::to_string(waitOnStream);
        return add(event("cuda_sync", kind, device, int(stream), ts, dur, args));
    }

    QByteArray json() const { return QByteArray::fromStdString("{\"traceEvents\": [\n" + m_events + "\n]}"); }

private:
    static std::string micros(int64_t ns)
    {
        char text[48];
        std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ns / 1000),
                      static_cast<long long>(ns % 1000));
        return text;
    }
    static std::string event(const char* cat, const char* name, int pid, int tid, int64_t ts, int64_t dur,
                             const std::string& args)
    {
        return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name + "\", \"pid\": " +
               std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + micros(ts) +
               ", \"dur\": " + micros(dur) + ", \"args\": {" + args + "}}";
    }
    static std::string gpu(const char* cat, const char* name, int64_t ts, int64_t dur, int64_t stream,
                           int64_t correlation, int device, const std::string& extra)
    {
        return event(cat, name, device, int(stream), ts, dur,
                     "\"device\": " + std::to_string(device) + ", \"stream\": " + std::to_string(stream) +
                         ", \"correlation\": " + std::to_string(correlation) + extra);
    }
    KinetoTrace& add(const std::string& e)
    {
        m_events += (m_events.empty() ? "  " : ",\n  ") + e;
        return *this;
    }
    std::string m_events;
};

} // namespace spanscope::testing
