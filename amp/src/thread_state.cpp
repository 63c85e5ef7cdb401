#include "thread_state.h"

#include "ampbench/amp/op_counters.h"

#include <ATen/CachedTensorUtils.h>
#include <ATen/autocast_mode.h>

#include <optional>
#include <unordered_map>

namespace ampbench::amp {
namespace {

// The weight-cast cache, per thread (LibTorch's is one global map behind a mutex). The key is the
// weight's TensorImpl; the weak reference keeps that TensorImpl's memory from being reused by
// another tensor while the entry lives, so an address can never hit for the wrong tensor.
// An entry holds the weight's cast, its transpose's cast, or both (see transposed_weight).
struct CachedCast {
  using WeakImpl = c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>;
  WeakImpl source;
  at::Tensor cast;
  at::Tensor transposed_cast;
};
thread_local std::unordered_map<const c10::TensorImpl*, CachedCast> cached_casts;
thread_local CastCacheStats cache_stats;

bool is_cacheable(const at::Tensor& t, c10::ScalarType to, c10::DeviceType device_type) {
  return to == at::autocast::get_autocast_dtype(device_type) && t.scalar_type() == at::kFloat && t.requires_grad() &&
         t.is_leaf() && !t.is_view() && at::autocast::is_autocast_cache_enabled() && !at::caching::is_cached_tensor(t);
}

// The 2-D weight that t is the plain transpose of, if any. torch::nn::Linear in the C++ frontend
// calls addmm(bias, x, weight.t()) or matmul(x, weight.t()), so its weight reaches autocast as a
// fresh view on every call, which LibTorch never caches. ampbench caches the cast of that view
// under the weight: the first use casts exactly as LibTorch does (same graph, same cost), later
// uses in the scope hit, as Python's F.linear (which passes the weight itself) does.
std::optional<at::Tensor> transposed_weight(const at::Tensor& t) {
  if (!t.is_view() || t.dim() != 2 || !t.requires_grad()) {
    return std::nullopt;
  }
  const at::Tensor base(t._base());
  if (!base.defined() || base.dim() != 2 || base.storage_offset() != t.storage_offset() || t.size(0) != base.size(1) ||
      t.size(1) != base.size(0) || t.stride(0) != base.stride(1) || t.stride(1) != base.stride(0)) {
    return std::nullopt;
  }
  return base;
}

// The cast of `weight` (transposed: of `view`, its transpose) from the cache, or cast now and kept.
at::Tensor cached_cast(const at::Tensor& weight, const at::Tensor& view, bool transposed, c10::ScalarType to) {
  auto it = cached_casts.find(weight.unsafeGetTensorImpl());
  if (it == cached_casts.end()) {
    it = cached_casts
             .emplace(weight.unsafeGetTensorImpl(), CachedCast{CachedCast::WeakImpl(weight.getIntrusivePtr()), {}, {}})
             .first;
  }
  CachedCast& entry = it->second;
  at::Tensor& wanted = transposed ? entry.transposed_cast : entry.cast;
  const at::Tensor& other = transposed ? entry.cast : entry.transposed_cast;
  if (wanted.defined() || other.defined()) {
    ++cache_stats.hits;
    if (!wanted.defined()) {
      wanted = other.t();
    }
    return wanted;
  }
  ++cache_stats.casts;
  wanted = view.to(to);
  return wanted;
}

}  // namespace

CastCacheStats cast_cache_stats() { return cache_stats; }

void reset_cast_cache_stats() { cache_stats = {}; }

namespace detail {

AutocastSwitches read_switches(c10::DeviceType device_type) {
  return {at::autocast::is_autocast_enabled(device_type), at::autocast::get_autocast_dtype(device_type)};
}

void write_switches(c10::DeviceType device_type, AutocastSwitches switches) {
  at::autocast::set_autocast_enabled(device_type, switches.enabled);
  at::autocast::set_autocast_dtype(device_type, switches.dtype);
}

c10::ScalarType lower_precision_dtype(c10::DeviceType device_type) {
  return at::autocast::get_autocast_dtype(device_type);
}

void enter_autocast_nesting() { at::autocast::increment_nesting(); }

void leave_autocast_nesting() {
  if (at::autocast::decrement_nesting() == 0) {
    cached_casts.clear();
    at::autocast::clear_cache();
  }
}

bool is_autocast_eligible(const at::Tensor& t, c10::DeviceType device_type) {
  if (!t.defined() || !t.is_floating_point() || t.scalar_type() == at::kDouble) {
    return false;
  }
  switch (device_type) {
    case c10::DeviceType::CPU:
      return t.is_cpu() || t.is_mkldnn();
    case c10::DeviceType::CUDA:
      return t.is_cuda() || t.is_xla();
    default:
      return false;
  }
}

at::Tensor cast_for_autocast(const at::Tensor& t, c10::ScalarType to, c10::DeviceType device_type) {
  if (!is_autocast_eligible(t, device_type) || t.scalar_type() == to) {
    return t;
  }
  if (is_cacheable(t, to, device_type)) {
    return cached_cast(t, t, /*transposed=*/false, to);
  }
  if (const auto weight = transposed_weight(t); weight && is_cacheable(*weight, to, device_type)) {
    return cached_cast(*weight, t, /*transposed=*/true, to);
  }
  ++cache_stats.uncached_casts;
  return t.to(to);
}

}  // namespace detail
}  // namespace ampbench::amp
