// What the rounds read around each block besides its time: the energy of the block's timed steps
// and, on a GPU, NVML's samples of the device's clocks, power, temperature and clocks-event
// reasons. Everything is read outside the timed steps.
#pragma once

#include <c10/core/Device.h>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/device_state.h"
#include "machine/energy_meter.h"
#include "machine/nvml_library.h"

namespace ampbench::harness::detail {

// One slot's energy in each round: its timed steps' joules and the time they were read over.
struct BlockEnergy {
  std::vector<double> round_joules;
  std::vector<double> round_window_s;
};

class RoundMeters {
 public:
  // Opens what the device offers; what cannot be opened is left out (the environment's record of
  // the energy meter says why). Never throws.
  RoundMeters(c10::Device device, std::size_t slots);

  void begin_round();
  // Around a block's timed steps. On a GPU whose energy is read, both wait for the device, so the
  // counter's window holds this block's kernels and no other's; the GPU is sampled before the
  // wait, while its queue still runs the block.
  void begin_block();
  void end_block(std::size_t slot);
  // The round's GPU state and each slot's joules (0 for a slot that ran no block).
  void end_round();

  [[nodiscard]] bool measures_energy() const { return energy_.has_value(); }
  [[nodiscard]] const std::string& energy_meter() const;
  [[nodiscard]] double energy_update_s() const;
  [[nodiscard]] const BlockEnergy& energy_of(std::size_t slot) const { return slot_energy_[slot]; }
  // Empty without NVML.
  [[nodiscard]] const std::vector<reports::GpuRoundState>& device_rounds() const { return device_rounds_; }
  [[nodiscard]] std::optional<double> max_sm_clock_mhz() const { return max_sm_clock_mhz_; }

 private:
  void sample_gpu();

  c10::Device device_;
  std::shared_ptr<NvmlDevice> nvml_;
  std::optional<EnergyMeter> energy_;
  std::optional<double> max_sm_clock_mhz_;
  std::vector<BlockEnergy> slot_energy_;
  std::vector<reports::GpuRoundState> device_rounds_;
  // The round in progress.
  std::vector<GpuSample> samples_;
  GpuSample round_start_;
  std::vector<double> round_joules_;
  std::vector<double> round_window_s_;
  double block_start_joules_ = 0.0;
  double block_start_s_ = 0.0;
};

// The round's state from its samples and the violation counters at its start (its first sample
// after them): lowest clocks, mean power, highest temperature, every reason, each cause's growth.
[[nodiscard]] reports::GpuRoundState summarize_round(const GpuSample& start, const std::vector<GpuSample>& samples);

}  // namespace ampbench::harness::detail
