#include "span_budget_box.h"

#include <QDoubleSpinBox>

namespace spanscope::app {

QDoubleSpinBox* createSpanBudgetBox()
{
    auto* box = new QDoubleSpinBox;
    box->setObjectName(QStringLiteral("spanBudget"));
    box->setRange(0, 1e9);
    box->setDecimals(0);
    box->setSingleStep(10000);
    box->setSpecialValueText(QObject::tr("unlimited"));
    box->setSuffix(QObject::tr(" spans/s"));
    box->setToolTip(QObject::tr("Keeps the viewer responsive under a flood of ranges: per "
                                "process, whole top-level trees are kept or left out, and what "
                                "was left out is counted"));
    return box;
}

} // namespace spanscope::app
