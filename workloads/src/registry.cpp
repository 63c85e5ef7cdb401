#include "ampbench/workloads/registry.h"

#include <functional>
#include <stdexcept>

#include "factories.h"

namespace ampbench::workloads {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

const std::vector<WorkloadInfo>& known_workloads() {
  static const std::vector<WorkloadInfo> workloads{
      {"simplenet", "MLP regressing a random teacher MLP (MSE, SGD); seed preset: Linear 10->1, 100 samples"},
      {"simplecnn", "conv 3->32->64 + fc on 3x32x32 images, teacher's classes (CrossEntropy, Adam)"},
      {"transformer", "pre-norm attention (SDPA) + GELU MLP block regressing a teacher block (MSE, AdamW)"},
  };
  return workloads;
}

std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadOptions& options) {
  if (name == "simplenet") return detail::make_simple_net(options);
  if (name == "simplecnn") return detail::make_simple_cnn(options);
  if (name == "transformer") return detail::make_transformer_block(options);
  std::vector<std::string> names;
  for (const auto& workload : known_workloads()) names.push_back(workload.name);
  throw std::invalid_argument("unknown workload '" + name + "' (known: " + joined(names) + ")");
}

namespace detail {

std::int64_t batch_size(const WorkloadOptions& options, std::int64_t preset_batch) {
  const std::int64_t batch = options.batch.value_or(preset_batch);
  if (batch <= 0) throw std::invalid_argument("batch must be positive, got " + std::to_string(batch));
  return batch;
}

}  // namespace detail
}  // namespace ampbench::workloads
