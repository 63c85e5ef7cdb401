#include "process_group.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace ampbench::harness::detail {

c10::intrusive_ptr<c10d::ProcessGroup> open_process_group(const RankAssignment& rank, c10::Device device,
                                                          std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(rank.store_port);
  options.isServer = false;  // the run's store lives in the process that started the run (or rank 0's)
  options.timeout = timeout;
  c10::intrusive_ptr<c10d::Store> tcp;
  try {
    tcp = c10::make_intrusive<c10d::TCPStore>(rank.store_host, options);
  } catch (const std::exception& error) {
    throw std::runtime_error("rank " + std::to_string(rank.rank) + ": cannot reach the rendezvous store at " +
                             rank.store_host + ":" + std::to_string(rank.store_port) + ": " +
                             std::string(error.what()).substr(0, std::string(error.what()).find('\n')));
  }
  // Each worker group is a process group of its own under its prefix, so the keys of one workload's
  // group never meet another's.
  auto store = c10::make_intrusive<c10d::PrefixStore>(rank.group, tcp);
  const int rank_index = static_cast<int>(rank.rank);
  const int size = static_cast<int>(rank.world_size);
  auto group = c10::make_intrusive<c10d::ProcessGroup>(store, rank_index, size);
  if (device.is_cuda()) {
    group->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL,
                      make_nccl_backend(store, rank_index, size, device, timeout));
    group->setDefaultBackend(c10d::ProcessGroup::BackendType::NCCL);
  } else {
    group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO,
                      make_gloo_backend(store, rank_index, size, rank.interface_host, timeout));
    group->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
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
