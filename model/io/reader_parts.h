#pragma once
// Pieces shared by the schema readers. Internal to model/io.

#include "../capture.h"
#include "../load_control.h"
#include "../result.h"
#include "h5_file.h"

namespace spanscope::model::io {

// Schema 1: /rank<N>/regions/<name>/{start_times,end_times,...}.
Status readPerRankGroups(const H5File& file, Capture& capture, const ProgressRange& progress);
// Schemas 2 and 3 (absolute or delta-encoded events, columnar or aggregate).
Status readColumnar(const H5File& file, Capture& capture, const ProgressRange& progress);

// Faults in the pages of the start and end columns (sized already) on other cores while
// HDF5 fills them, for as long as it lives (BackgroundPrefault, column.h). Does nothing in
// the structure-only probe, which does not fill them.
class EventColumnPrefault
{
public:
    EventColumnPrefault(const H5File& file, EventColumns& events)
        : m_start(events.start.mutableData(), file.structureOnly() ? 0 : events.start.size() * sizeof(int64_t)),
          m_end(events.end.mutableData(), file.structureOnly() ? 0 : events.end.size() * sizeof(int64_t))
    {}

private:
    BackgroundPrefault m_start, m_end;
};

// /metadata attributes; unreadable ones become warnings.
void readMetadata(const H5File& file, Capture& capture);
// /thread_table and /task_table when present.
Status readLaneTables(const H5File& file, Capture& capture);

// Checks that need the whole capture: calls that never closed, lane ids that point
// nowhere. Adds warnings; never fails.
void checkEvents(Capture& capture);

// Walks the file as readRegionFile would, reading everything but the bulk of large
// numeric columns. For crash isolation (crash_guard.h); true if it read without error.
bool readRegionStructure(const std::string& path);

// Parses "rank<digits>" into its number; false for any other name.
bool parseRankGroupName(const std::string& name, int32_t& rank);

} // namespace spanscope::model::io
