// Chrome trace events (the JSON Perfetto and chrome://tracing load): one process per device, one thread
// per engine (MME, TPC, link), complete events ("ph": "X") in microseconds.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpc/harness/device.h"

namespace tpc::harness {

// The lanes of a device's timelines as events, shifted by `offsetUs`, appended to `events`.
void appendDeviceEvents(const Device& device, double offsetUs, const std::string& stepLabel, nlohmann::json& events);

// The whole trace: metadata naming the devices and lanes, then the events.
nlohmann::json chromeTrace(int devices, const nlohmann::json& events);

}  // namespace tpc::harness
