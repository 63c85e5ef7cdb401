#include "measure/device_step_timer.h"

#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

namespace ampbench::harness::detail {
namespace {

// BACKEND_DEFAULT: an event with timing enabled (PYTORCH_DEFAULT disables timing).
c10::Event timing_event(const c10::Device& device) {
  return c10::Event(device.type(), c10::EventFlag::BACKEND_DEFAULT);
}

}  // namespace

DeviceStepTimer::DeviceStepTimer(const c10::Device& device) : device_(device) {
  TORCH_CHECK(!device.is_cpu(), "DeviceStepTimer: the CPU has no device events; time CPU steps on the host");
}

void DeviceStepTimer::start_step() {
  TORCH_CHECK(starts_.size() == ends_.size(), "DeviceStepTimer: start_step() twice without end_step()");
  starts_.push_back(timing_event(device_));
  starts_.back().record(c10::impl::VirtualGuardImpl(device_.type()).getStream(device_));
}

void DeviceStepTimer::end_step() {
  TORCH_CHECK(starts_.size() == ends_.size() + 1, "DeviceStepTimer: end_step() without start_step()");
  ends_.push_back(timing_event(device_));
  ends_.back().record(c10::impl::VirtualGuardImpl(device_.type()).getStream(device_));
}

const std::vector<double>& DeviceStepTimer::finished_step_seconds() {
  while (seconds_.size() < ends_.size() && ends_[seconds_.size()].query()) {
    const std::size_t step = seconds_.size();
    seconds_.push_back(starts_[step].elapsedTime(ends_[step]) / 1e3);  // elapsedTime is in ms
  }
  return seconds_;
}

const std::vector<double>& DeviceStepTimer::all_step_seconds() {
  if (!ends_.empty()) ends_.back().synchronize();
  return finished_step_seconds();
}

}  // namespace ampbench::harness::detail
