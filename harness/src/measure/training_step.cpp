#include "measure/training_step.h"

#include <ampbench/amp/autocast.h>

#include <limits>
#include <optional>
#include <stdexcept>

#include "distributed/gradient_sync.h"
#include "measure/layer_ranges.h"
#include "measure/nvtx_ranges.h"

namespace ampbench::harness::detail {

torch::Tensor TrainingStep::run(const workloads::Batch& batch, bool inject_overflow) const {
  // The whole step as one profiler scope: where the time breakdown's steps begin and end.
  RECORD_USER_SCOPE(kStepScope);
  optimizer.zero_grad();
  torch::Tensor loss;
  {
    PhaseRange range(StepPhase::kForward);
    std::optional<amp::Autocast> autocast;
    if (mode.autocast) autocast.emplace(device_type, mode.compute_dtype);
    const ForwardObservation observation(layer_ranges);
    loss = workload.loss(batch);
  }
  if (loss.dim() != 0) {
    throw std::invalid_argument("workload '" + workload.name() + "': loss() returned a tensor of shape " +
                                c10::str(loss.sizes()) + ", not a scalar");
  }
  if (inject_overflow) loss = loss * std::numeric_limits<float>::infinity();
  if (scaler == nullptr) {
    {
      PhaseRange range(StepPhase::kBackward);
      if (sync != nullptr) sync->before_backward(loss);
      loss.backward();
    }
    PhaseRange range(StepPhase::kOptimizerStep);
    optimizer.step();
    return loss.detach();
  }
  {
    PhaseRange range(StepPhase::kBackward);
    const auto scaled = scaler->scale(loss);
    if (sync != nullptr) sync->before_backward(scaled);
    scaled.backward();
  }
  {
    PhaseRange range(StepPhase::kUnscale);
    scaler->unscale_(optimizer);
  }
  {
    PhaseRange range(StepPhase::kOptimizerStep);
    (void)scaler->step(optimizer);  // skipped steps are read from the scaler's telemetry
  }
  PhaseRange range(StepPhase::kScalerUpdate);
  scaler->update();
  return loss.detach();
}

}  // namespace ampbench::harness::detail
