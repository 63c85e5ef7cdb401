#include "synthetic_data.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <torch/nn/module.h>
#include <torch/torch.h>

#include <mutex>

namespace ampbench::workloads::detail {
namespace {

std::uint64_t mix(std::uint64_t seed, Stream stream, std::int64_t index) {
  // splitmix64 over the three inputs: nearby seeds and indices give unrelated streams.
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(stream) * 0xBF58476D1CE4E5B9ULL +
                    static_cast<std::uint64_t>(index) * 0x94D049BB133111EBULL;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

at::Generator generator_for(std::uint64_t seed, Stream stream, std::int64_t index) {
  return at::make_generator<at::CPUGeneratorImpl>(mix(seed, stream, index));
}

torch::Tensor data_normal(std::uint64_t seed, std::int64_t index, at::IntArrayRef shape, const c10::Device& device) {
  if (device.is_cpu()) return at::randn(shape, generator_for(seed, Stream::kData, index), torch::kFloat32);
  // A private copy of the device's default generator (so no global state moves), reseeded: on
  // CUDA, setting the seed also rewinds the Philox offset, so the draw depends on the seed alone.
  auto defaults = at::globalContext().defaultGenerator(device);
  at::Generator generator;
  {
    std::lock_guard<std::mutex> lock(defaults.mutex());
    generator = defaults.clone();
  }
  generator.set_current_seed(mix(seed, Stream::kData, index));
  return at::randn(shape, generator, torch::TensorOptions().dtype(torch::kFloat32).device(device));
}

void seed_global_generator(std::uint64_t seed, Stream stream) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_current_seed(mix(seed, stream, 0));
}

at::Generator save_global_generator() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.clone();
}

void restore_global_generator(const at::Generator& saved) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(saved.get_state());
}

void freeze(torch::nn::Module& teacher) {
  teacher.eval();
  for (auto& parameter : teacher.parameters()) parameter.set_requires_grad(false);
}

}  // namespace ampbench::workloads::detail
