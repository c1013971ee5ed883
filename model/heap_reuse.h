#pragma once
// Keeping freed heap memory for the next allocation instead of handing it back to the
// kernel, for processes that update a live capture several times a second.
//
// Each live update allocates and frees tens of MiB of scratch (the calls that arrived,
// sorted runs of durations, table rows), each block from a few KiB to a few MiB. By
// default glibc serves blocks of 128 KiB and more (a threshold it raises as they are
// freed) with mappings of their own, and trims the heap's top as soon as 128 KiB are free
// there: so an update's scratch is mostly fresh pages, and on a virtual machine a fresh
// page costs microseconds to fault in and zero. At 10 M calls of a CUDA job that was
// ~1,400 page faults per update (~6 MB); keeping the heap took the update from ~54 to
// ~40 ms (docs/live-updates.md).
namespace spanscope::model {

// Serves blocks up to 32 MiB from the heap (larger ones, and every event column of 4 MiB
// and more, are still mappings of their own: column.h) and keeps 64 MiB free at its top
// when trimming it, so that what one update frees the next reuses, its pages in place.
// Call once, early (before the threads that allocate start). Does nothing where the C
// library is not glibc.
void keepHeapForReuse();

} // namespace spanscope::model
