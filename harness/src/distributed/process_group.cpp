#include "distributed/process_group.h"

#include <c10/util/Logging.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "ampbench/reports/run_config.h"
#include "error_text.h"

namespace ampbench::harness::detail {
namespace {

// Gloo on the CPU, NCCL on a GPU; building either waits for every rank of the group.
void attach_backend(c10d::ProcessGroup& group, const c10::intrusive_ptr<c10d::Store>& store, const RankAssignment& rank,
                    c10::Device device, std::chrono::milliseconds timeout) {
  const int rank_index = static_cast<int>(rank.rank);
  const int size = static_cast<int>(rank.world_size);
  if (device.is_cuda()) {
    group.setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL,
                     make_nccl_backend(store, rank_index, size, device, timeout));
    group.setDefaultBackend(c10d::ProcessGroup::BackendType::NCCL);
  } else {
    group.setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO,
                     make_gloo_backend(store, rank_index, size, rank.interface_host, timeout));
    group.setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
  }
}

}  // namespace

QuietC10dLog::QuietC10dLog() : level_(FLAGS_caffe2_log_level) { FLAGS_caffe2_log_level = 3; }  // fatal only
QuietC10dLog::~QuietC10dLog() { FLAGS_caffe2_log_level = level_; }

c10::intrusive_ptr<c10d::ProcessGroup> open_process_group(const RankAssignment& rank, c10::Device device,
                                                          std::chrono::milliseconds timeout) {
  const QuietC10dLog quiet;  // what goes wrong is said once, in the cell's error
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(rank.store_port);
  options.isServer = false;  // the run's store lives in the process that started the run (or rank 0's)
  options.timeout = timeout;
  c10::intrusive_ptr<c10d::Store> tcp;
  try {
    tcp = c10::make_intrusive<c10d::TCPStore>(rank.store_host, options);
  } catch (const std::exception& error) {
    throw std::runtime_error("cannot reach the rendezvous store at " + rank.store_host + ":" +
                             std::to_string(rank.store_port) + ": " + error_text(error));
  }
  // Each worker group is a process group of its own under its prefix, so the keys of one workload's
  // group never meet another's.
  auto store = c10::make_intrusive<c10d::PrefixStore>(rank.group, tcp);
  auto group =
      c10::make_intrusive<c10d::ProcessGroup>(store, static_cast<int>(rank.rank), static_cast<int>(rank.world_size));
  try {
    attach_backend(*group, store, rank, device, timeout);
  } catch (const std::exception& error) {
    throw std::runtime_error("not every rank of the group joined within " + std::to_string(timeout.count() / 1000) +
                             " s (" + reports::flag_of(&reports::RunConfig::rank_timeout_s) +
                             "): " + error_text(error));
  }
  return group;
}

double from_rank_zero(c10d::ProcessGroup* group, c10::Device device, double value) {
  if (group == nullptr) return value;
  std::vector<at::Tensor> tensors{torch::full({1}, value, torch::TensorOptions().dtype(torch::kDouble).device(device))};
  group->broadcast(tensors)->wait();
  return tensors.front().item<double>();
}

}  // namespace ampbench::harness::detail
