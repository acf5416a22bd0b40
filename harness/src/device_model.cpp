#include "tpc/harness/device_model.h"

namespace tpc::harness {

const DeviceModel& gaudi2() {
  static const DeviceModel model;
  return model;
}

}  // namespace tpc::harness
