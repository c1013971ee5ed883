#pragma once
// The colours of GPU work classes and critical-path shares, one set for the GPU tab, the
// timeline's critical path and the comparison: compute green, communication blue, memory
// amber (as the timeline draws kernels and copies), idle grey. GUI thread only.

#include "model/analysis/critical_path.h"

#include <QColor>

namespace spanscope::views {

inline QColor computeColor() { return QColor(58, 154, 91); }
inline QColor communicationColor() { return QColor(63, 127, 209); }
inline QColor memoryColor() { return QColor(217, 154, 30); }
inline QColor idleColor(bool dark) { return dark ? QColor(90, 90, 96) : QColor(196, 196, 200); }

inline QColor pathShareColor(model::analysis::PathShare share)
{
    using model::analysis::PathShare;
    switch (share) {
    case PathShare::Cpu: return QColor(120, 126, 140);
    case PathShare::GpuCompute: return computeColor();
    case PathShare::GpuCommunication: return communicationColor();
    case PathShare::GpuMemory: return memoryColor();
    case PathShare::LaunchOverhead: return QColor(155, 89, 182);
    case PathShare::KernelGap: return QColor(140, 190, 160);
    case PathShare::Synchronization: return QColor(214, 72, 72);
    }
    return QColor(120, 126, 140);
}

} // namespace spanscope::views
