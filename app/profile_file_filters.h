#pragma once
// The file-dialog filters for everything spanscope opens: region files and Chrome /
// PyTorch profiler traces (which spanscope tells apart by content, not by name).

#include <QCoreApplication>
#include <QString>

namespace spanscope::app {

inline QString profileFileFilters()
{
    return QCoreApplication::translate("spanscope",
                                       "Profiles (*.h5 *.hdf5 *.he5 *.json *.json.gz *.gz);;"
                                       "Region files (*.h5 *.hdf5 *.he5);;"
                                       "Chrome and PyTorch traces (*.json *.json.gz *.gz);;"
                                       "All files (*)");
}

} // namespace spanscope::app
