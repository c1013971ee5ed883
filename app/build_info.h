#pragma once
// What this build of the viewer is made of and can do, for Help > About and bug reports:
// the versions of spanscope and the libraries it uses, and whether live NVTX and CUDA
// capture work from here (checked on disk, where the viewer would look when launching).

#include <QList>
#include <QString>

namespace spanscope::app {

struct BuildInfoRow
{
    QString component; // "Qt", "NVTX capture", ...
    QString value;     // a version, or whether and why (not) available
};

QList<BuildInfoRow> buildInfo();

// The rows as "component: value" lines, for the clipboard.
QString buildInfoText(const QList<BuildInfoRow>& rows);

} // namespace spanscope::app
