// libcupti, loaded with dlopen at run time: the collector never links CUPTI or the CUDA
// driver, so it loads into any job, with or without CUDA, and a machine without a driver
// costs nothing but a failed dlopen or a CUPTI error (reported in the capture's metadata).
#pragma once

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_version.h>

#include <string>
#include <vector>

namespace spanscope::collector::cuda {

struct CuptiLibrary
{
    // Required: without any of these the library is not used.
    decltype(&cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
    decltype(&cuptiActivityEnable) activityEnable = nullptr;
    decltype(&cuptiActivityFlushAll) activityFlushAll = nullptr;
    decltype(&cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
    decltype(&cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
    decltype(&cuptiGetResultString) getResultString = nullptr;
    decltype(&cuptiGetVersion) getVersion = nullptr;
    decltype(&cuptiGetTimestamp) getTimestamp = nullptr;
    decltype(&cuptiGetCallbackName) getCallbackName = nullptr;
    // Optional (newer CUPTI versions): null where the library lacks them.
    decltype(&cuptiActivityRegisterTimestampCallback) activityRegisterTimestampCallback = nullptr;
    decltype(&cuptiActivityFlushPeriod) activityFlushPeriod = nullptr;
    decltype(&cuptiGetStreamIdEx) getStreamIdEx = nullptr;
    decltype(&cuptiActivityDisable) activityDisable = nullptr;
    decltype(&cuptiSetThreadIdType) setThreadIdType = nullptr;

    std::string path;        // the file that was loaded
    unsigned version = 0;    // cuptiGetVersion: CUPTI_API_VERSION of the library

    // Loads the first usable library: $SPANSCOPE_CUPTI alone when set, else libcupti.so
    // as the dynamic loader finds it (LD_LIBRARY_PATH, ld.so.cache), then the CUDA
    // toolkit's usual places ($CUDA_HOME, /usr/local/cuda). False with `error` saying what
    // was tried and why each failed.
    bool load(std::string& error);

    // CUPTI's text for `result` ("CUPTI_ERROR_NOT_INITIALIZED"), or its number.
    std::string describe(CUptiResult result) const;

    // Where load() looks, in order (for messages and tests).
    static std::vector<std::string> candidates();
};

} // namespace spanscope::collector::cuda
