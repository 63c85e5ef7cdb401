#include "measure/training_state_snapshot.h"

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>
#include <torch/utils.h>

#include <sstream>
#include <stdexcept>

namespace ampbench::harness {
namespace {

std::vector<torch::Tensor> copies_of(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> copies;
  copies.reserve(tensors.size());
  for (const auto& tensor : tensors) copies.push_back(tensor.detach().clone());
  return copies;
}

void copy_back(const std::vector<torch::Tensor>& saved, const std::vector<torch::Tensor>& live, const char* what) {
  if (saved.size() != live.size()) {
    throw std::logic_error(std::string("TrainingStateSnapshot::restore: the module has ") +
                           std::to_string(live.size()) + " " + what + ", the snapshot " + std::to_string(saved.size()));
  }
  const torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < live.size(); ++i) {
    if (!live[i].sizes().equals(saved[i].sizes())) {
      throw std::logic_error(std::string("TrainingStateSnapshot::restore: ") + what + " " + std::to_string(i) +
                             " changed shape since the snapshot");
    }
    live[i].copy_(saved[i]);
  }
}

}  // namespace

TrainingStateSnapshot::TrainingStateSnapshot(torch::nn::Module& module, torch::optim::Optimizer& optimizer,
                                             amp::GradScaler* scaler)
    : module_(module),
      optimizer_(optimizer),
      scaler_(scaler),
      parameters_(copies_of(module.parameters())),
      buffers_(copies_of(module.buffers())) {
  // Serialising is the one generic deep copy of an optimizer's state: its per-parameter states
  // are opaque, and their clone() shares the tensors that step() then updates in place.
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  optimizer_state_ = bytes.str();
  if (scaler != nullptr) scaler_state_ = scaler->state_dict();  // two host syncs; not in a timed region
}

void TrainingStateSnapshot::restore() {
  copy_back(parameters_, module_.parameters(), "parameters");
  copy_back(buffers_, module_.buffers(), "buffers");
  torch::serialize::InputArchive archive;
  std::istringstream bytes(optimizer_state_);
  archive.load_from(bytes);  // each tensor back on the device it was saved from
  // load() only overwrites the states the archive holds; one a later step created must go too.
  optimizer_.state().clear();
  optimizer_.load(archive);
  if (scaler_ != nullptr && scaler_state_) scaler_->load_state_dict(*scaler_state_);
}

}  // namespace ampbench::harness
