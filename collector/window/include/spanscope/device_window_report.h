/* spanscope device windows, the collector's side: one closed window as <spanscope/device_window.h>
 * hands it to the collector. C-compatible, shared by that header and the collector.
 *
 * When a window's duration is first resolved (DeviceDuration::wait), the header looks up
 * spanscope_report_device_window (dlsym: RTLD_DEFAULT, else the already loaded library named
 * by CUDA_INJECTION64_PATH or NVTX_INJECTION64_PATH, which the CUDA driver and NVTX open
 * without RTLD_GLOBAL) and, when the process runs under spanscope's collector, calls it once
 * for the window on the thread that resolved it.
 * The collector shows the window as a range on its "device windows" track.
 *
 * Layout rules: fields are only ever appended. The caller sets `size` to the size of the
 * struct it was built with; the callee reads a field only when offsetof(field) +
 * sizeof(field) <= size, and treats a missing one as unknown. Everything is copied during
 * the call: no pointer in the report is valid after it returns. */
#ifndef SPANSCOPE_DEVICE_WINDOW_REPORT_H
#define SPANSCOPE_DEVICE_WINDOW_REPORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spanscope_device_window_report {
    uint32_t size;           /* sizeof(spanscope_device_window_report): lets the layout grow */
    int32_t device;          /* CUDA device ordinal, -1 = unknown */
    uint64_t stream;         /* the stream handle as an integer, 0 = the legacy default stream */
    const char* name;        /* UTF-8, NUL-terminated, may be NULL; copied by the callee */
    int64_t hostStartNs;     /* CLOCK_MONOTONIC ns when start() enqueued the opening event */
    int64_t hostEndNs;       /* CLOCK_MONOTONIC ns when stop() enqueued the closing event */
    int64_t deviceStartNs;   /* the opening event's device time placed on CLOCK_MONOTONIC (anchor), -1 = unknown */
    int64_t deviceEndNs;     /* the closing event's, likewise */
    int64_t deviceDurationNs;/* elapsed between the two events on the device clock */
} spanscope_device_window_report;

/* The collector's entry point. Defined (and exported) by libspanscope-collector only: user
 * code never calls it directly, since it is absent outside spanscope; it is looked up by
 * this name. Any thread; must not block for long (it runs on the thread that waited). */
#define SPANSCOPE_REPORT_DEVICE_WINDOW_SYMBOL "spanscope_report_device_window"
typedef void (*spanscope_report_device_window_fn)(const spanscope_device_window_report* report);
void spanscope_report_device_window(const spanscope_device_window_report* report);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The layout on LP64 (Linux x86-64, aarch64): 64 bytes, no padding. */
#if UINTPTR_MAX == UINT64_MAX
#if defined(__cplusplus)
static_assert(sizeof(spanscope_device_window_report) == 64, "spanscope_device_window_report layout");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(spanscope_device_window_report) == 64, "spanscope_device_window_report layout");
#endif
#endif

#endif /* SPANSCOPE_DEVICE_WINDOW_REPORT_H */
