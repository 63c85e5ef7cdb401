#include "measure/flop_count.h"

#include <ampbench/amp/autocast.h>
#include <ampbench/amp/op_counters.h>
#include <torch/torch.h>

namespace ampbench::harness {

FlopFigure step_flops(workloads::Workload& workload) {
  if (const auto stated = workload.flops_per_step()) return {*stated, reports::FlopSource::kWorkload};
  auto& module = workload.module();
  const bool was_training = module.is_training();
  module.eval();
  double forward_flops = 0.0;
  {
    const torch::NoGradGuard no_grad;
    const auto batch = workload.make_batch(0);
    const auto device = batch.input.device();
    // The counting kernels are the autocast ones; the dtype only decides what the forward's
    // values are, not the shapes the FLOPs come from.
    const amp::Autocast scope(device.type(), device.is_cuda() ? at::kHalf : at::kBFloat16);
    amp::reset_op_counts();
    (void)workload.loss(batch);
    for (const auto& count : amp::op_counts()) forward_flops += count.flops;
    amp::reset_op_counts();
  }
  module.train(was_training);
  return {3.0 * forward_flops, reports::FlopSource::kCounted};
}

}  // namespace ampbench::harness
