// Registers ampbench's autocast kernels once per process and device type, and drops them on
// request. Registration takes the dispatcher's lock and rebuilds dispatch tables, which is why a
// scope never registers: it only checks an atomic flag.
#include "ampbench/amp/autocast.h"
#include "autocast_kernel.h"
#include "autocast_kernels.h"
#include "typed_kernels.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace ampbench::amp {
namespace detail {
namespace {

// Passes every warning on to the previous handler except c10's notice that a kernel replaces a
// previously registered one: replacing LibTorch's native autocast kernels is the point here.
class RegistrationWarningFilter final : public c10::WarningHandler {
 public:
  RegistrationWarningFilter() : previous_(c10::WarningUtils::get_warning_handler()) {}
  void process(const c10::Warning& warning) override {
    if (warning.msg().find("Overriding a previously registered kernel") != std::string::npos) {
      return;
    }
    previous_->process(warning);
  }

 private:
  c10::WarningHandler* previous_;
};

c10::OperatorHandle find_aten_op(std::string_view op) {
  auto [name, overload] = split_op_name(op);
  auto handle = c10::Dispatcher::singleton().findSchema({"aten::" + name, overload});
  if (!handle) {
    throw std::invalid_argument("ampbench autocast: no ATen operator named '" + std::string(op) +
                                "' (write name or name.overload, e.g. \"layer_norm\" or \"conv2d.padding\")");
  }
  return *handle;
}

std::optional<std::size_t> optional_dtype_argument(const c10::OperatorHandle& handle) {
  const auto& arguments = handle.schema().arguments();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].name() == "dtype" && arguments[i].type()->kind() == c10::TypeKind::OptionalType) {
      return i;
    }
  }
  return std::nullopt;
}

class KernelRegistrations {
 public:
  static KernelRegistrations& instance() {
    static KernelRegistrations registrations;
    return registrations;
  }

  [[nodiscard]] bool installed(c10::DeviceType device_type) const {
    return installed_[slot(device_type)].load(std::memory_order_acquire);
  }

  void install(c10::DeviceType device_type) {
    const std::lock_guard lock(mutex_);
    if (!installed(device_type)) {
      register_fragment(device_type, nullptr);
    }
  }

  void add(OpEntry& entry) {
    const std::lock_guard lock(mutex_);
    if (installed(entry.device_type)) {
      register_fragment(entry.device_type, &entry);
    }
  }

  void release(c10::DeviceType device_type) {
    const std::lock_guard lock(mutex_);
    installed_[slot(device_type)].store(false, std::memory_order_release);
    fragments_[slot(device_type)].clear();  // destroying a Library unregisters its kernels
  }

  void reinstall(c10::DeviceType device_type) {
    const std::lock_guard lock(mutex_);
    if (installed(device_type)) {
      fragments_[slot(device_type)].clear();
      register_fragment(device_type, nullptr);
    }
  }

 private:
  static std::size_t slot(c10::DeviceType device_type) { return device_type == c10::DeviceType::CUDA ? 1 : 0; }

  // One fragment with every active entry of the device type (only == nullptr), or with one entry.
  void register_fragment(c10::DeviceType device_type, OpEntry* only) {
    RegistrationWarningFilter filter;
    const c10::WarningUtils::WarningHandlerGuard filter_guard(&filter);
    auto fragment = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", autocast_dispatch_key(device_type),
                                                     __FILE__, __LINE__);
    const auto register_entry = [&](OpEntry& entry) {
      const c10::OperatorHandle handle = find_aten_op(entry.name);
      if (auto typed = make_typed_kernel(entry)) {
        fragment->impl(entry.name.c_str(), std::move(*typed));
        return;
      }
      fragment->impl(entry.name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                             std::make_unique<AutocastKernel>(entry, optional_dtype_argument(handle))));
    };
    if (only != nullptr) {
      register_entry(*only);
    } else {
      for_each_active_entry(device_type, register_entry);
    }
    fragments_[slot(device_type)].push_back(std::move(fragment));
    installed_[slot(device_type)].store(true, std::memory_order_release);
  }

  std::mutex mutex_;
  std::array<std::atomic<bool>, 2> installed_{};
  std::array<std::vector<std::unique_ptr<torch::Library>>, 2> fragments_;
};

}  // namespace

void install_autocast_kernels(c10::DeviceType device_type) {
  auto& registrations = KernelRegistrations::instance();
  if (!registrations.installed(device_type)) {
    registrations.install(device_type);
  }
}

void install_added_op(OpEntry& entry) { KernelRegistrations::instance().add(entry); }

void reinstall_autocast_kernels(c10::DeviceType device_type) { KernelRegistrations::instance().reinstall(device_type); }

void check_op_for_policy(std::string_view op, CastPolicy policy) {
  const c10::OperatorHandle handle = find_aten_op(op);
  if (policy == CastPolicy::kFp32SetOptDtype && !optional_dtype_argument(handle)) {
    throw std::invalid_argument(
        "ampbench autocast: policy fp32_set_opt_dtype needs an op with an optional "
        "'dtype' argument, and '" +
        std::string(op) + "' has none; use fp32 instead");
  }
}

}  // namespace detail

void release_autocast_kernels() {
  detail::KernelRegistrations::instance().release(c10::DeviceType::CPU);
  detail::KernelRegistrations::instance().release(c10::DeviceType::CUDA);
}

bool autocast_kernels_installed(c10::DeviceType device_type) {
  detail::check_autocast_device(device_type);
  return detail::KernelRegistrations::instance().installed(device_type);
}

}  // namespace ampbench::amp
