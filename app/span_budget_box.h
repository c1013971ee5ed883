#pragma once
// The "Span budget" field of the Launch and Attach dialogs: spans per second a process may
// send before whole top-level trees are left out (and counted); 0 shows as "unlimited".

class QDoubleSpinBox;

namespace spanscope::app {

QDoubleSpinBox* createSpanBudgetBox();

} // namespace spanscope::app
