// Private helpers for deterministic synthetic tasks: every tensor is a pure function of
// (seed, stream, index), independent of the global RNG and of the order cells run in.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>
#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>

namespace ampbench::workloads::detail {

// Named streams, so the student's weights, the teacher's weights and the data never share draws.
enum class Stream : std::uint64_t { kStudent = 1, kTeacher = 2, kData = 3, kLabels = 4 };

[[nodiscard]] at::Generator generator_for(std::uint64_t seed, Stream stream, std::int64_t index = 0);

// Standard-normal tensor on `device`, drawn there: on the CPU from generator_for(seed, kData, index),
// elsewhere from that device's own generator seeded with the same number. Drawing on a GPU matters:
// a large preset's batch is millions of values, which the CPU takes tens of milliseconds to draw,
// and the numerics pass draws a fresh batch every step (on an H200 it took 77 s for SimpleNet).
// The same seed gives the same batches on every run of one device type, not across device types.
[[nodiscard]] torch::Tensor data_normal(std::uint64_t seed, std::int64_t index, at::IntArrayRef shape,
                                        const c10::Device& device);

void seed_global_generator(std::uint64_t seed, Stream stream);
[[nodiscard]] at::Generator save_global_generator();
void restore_global_generator(const at::Generator& saved);

// Runs `build` with the global CPU generator seeded from (seed, stream), so modules constructed
// inside get deterministic initial weights; the global generator's state is restored afterwards.
template <typename Build>
auto build_seeded(std::uint64_t seed, Stream stream, Build&& build) {
  const auto saved = save_global_generator();
  seed_global_generator(seed, stream);
  auto built = build();
  restore_global_generator(saved);
  return built;
}

// Freezes a teacher network: no gradients, inference only.
void freeze(torch::nn::Module& teacher);

// A teacher task's two networks of one architecture: the trainable student and the frozen
// teacher, each with initial weights from its own stream, both moved to `device`.
template <typename Net, typename Build>
void build_student_and_teacher(std::uint64_t seed, const c10::Device& device, Build&& build, Net& student,
                               Net& teacher) {
  student = build_seeded(seed, Stream::kStudent, build);
  teacher = build_seeded(seed, Stream::kTeacher, build);
  freeze(*teacher);
  student->to(device);
  teacher->to(device);
}

}  // namespace ampbench::workloads::detail
