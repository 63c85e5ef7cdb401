// Private: helpers of FusedSGD and FusedAdamFamily. Tensors are grouped into the lists one fused
// multi-tensor launch takes (one device and one dtype per launch, as Python's
// Optimizer._group_tensors_by_device_and_dtype).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <optional>
#include <vector>

namespace ampbench::amp::detail {

struct TensorBucket {
  c10::Device device;
  at::ScalarType dtype;
  std::vector<std::vector<at::Tensor>> lists;  // one list per argument of the fused op, in order
};

// The bucket for param's device and dtype, created with `list_count` empty lists if new.
TensorBucket& bucket_for(std::vector<TensorBucket>& buckets, const at::Tensor& param, std::size_t list_count);

// `tensor` on `device` (a no-op when it is already there); nullopt stays nullopt.
std::optional<at::Tensor> on_device(const std::optional<at::Tensor>& tensor, const c10::Device& device);

// Checks what every fused optimizer needs of a parameter with a gradient; names the optimizer.
void check_fusable(const at::Tensor& param, const char* optimizer);

}  // namespace ampbench::amp::detail
