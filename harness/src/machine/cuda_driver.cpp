#include "machine/cuda_driver.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace ampbench::harness::detail {
namespace {

using DeviceGet = CUresult (*)(CUdevice*, int);
using DeviceGetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
using PrimaryCtxRetain = CUresult (*)(CUcontext*, CUdevice);
using PrimaryCtxRelease = CUresult (*)(CUdevice);

// The driver LibTorch loaded, or null: never loads one (that would be a second driver instance
// when LibTorch has not initialised CUDA, and ampbench has nothing to profile then anyway).
void* loaded_driver() { return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD); }

template <typename Function>
Function driver_function(void* driver, const char* name) {
  return driver == nullptr ? nullptr : reinterpret_cast<Function>(dlsym(driver, name));
}

void check_driver(CUresult result, const std::string& call) {
  if (result != CUDA_SUCCESS)
    throw std::runtime_error(call + " failed (CUresult " + std::to_string(static_cast<int>(result)) + ")");
}

}  // namespace

RetainedPrimaryContext::RetainedPrimaryContext(int device_index) : driver_(loaded_driver()) {
  const auto device_get = driver_function<DeviceGet>(driver_, "cuDeviceGet");
  const auto retain = driver_function<PrimaryCtxRetain>(driver_, "cuDevicePrimaryCtxRetain");
  if (device_get == nullptr || retain == nullptr) {
    if (driver_ != nullptr) dlclose(driver_);
    throw std::runtime_error("the CUDA driver (libcuda.so.1) is not loaded in this process, so device " +
                             std::to_string(device_index) + " has no context to profile");
  }
  const std::string on_device = " for device " + std::to_string(device_index);
  try {
    check_driver(device_get(&device_, device_index), "cuDeviceGet" + on_device);
    check_driver(retain(&context_, device_), "cuDevicePrimaryCtxRetain" + on_device);
  } catch (...) {
    dlclose(driver_);
    throw;
  }
}

RetainedPrimaryContext::~RetainedPrimaryContext() {
  // cuda.h maps cuDevicePrimaryCtxRelease to its _v2, the one to look up by name.
  if (const auto release = driver_function<PrimaryCtxRelease>(driver_, "cuDevicePrimaryCtxRelease_v2")) {
    static_cast<void>(release(device_));  // nothing to do about a failed release in a destructor
  }
  dlclose(driver_);  // drops only the reference RTLD_NOLOAD took
}

std::optional<int> device_compute_mode(int device_index) {
  void* driver = loaded_driver();
  const auto device_get = driver_function<DeviceGet>(driver, "cuDeviceGet");
  const auto get_attribute = driver_function<DeviceGetAttribute>(driver, "cuDeviceGetAttribute");
  std::optional<int> mode;
  CUdevice device = 0;
  int value = 0;
  if (device_get != nullptr && get_attribute != nullptr && device_get(&device, device_index) == CUDA_SUCCESS &&
      get_attribute(&value, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, device) == CUDA_SUCCESS) {
    mode = value;
  }
  if (driver != nullptr) dlclose(driver);
  return mode;
}

}  // namespace ampbench::harness::detail
