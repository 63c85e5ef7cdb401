// When two reports cannot be judged against each other: other hardware, another allocator, or other
// precision settings or untimed steps per block for the same cell. `check` refuses such pairs unless told otherwise
// (--allow-env-mismatch).
#include <map>
#include <set>

#include "ampbench/reports/check.h"

namespace ampbench::reports {
namespace {

std::string model_of(const Environment& environment, const std::string& device) {
  for (const auto& info : environment.devices) {
    if (info.name == device) return info.model;
  }
  return "";
}

std::string settings_difference(const ModeSettings& a, const ModeSettings& b) {
  const auto flag = [](bool value) { return value ? std::string("true") : std::string("false"); };
  std::string out;
  const auto note = [&out](const std::string& name, const std::string& x, const std::string& y) {
    if (x != y) out += (out.empty() ? "" : ", ") + name + " " + x + " vs " + y;
  };
  note("compute_dtype", a.compute_dtype, b.compute_dtype);
  note("autocast", flag(a.autocast), flag(b.autocast));
  note("grad_scaler", flag(a.grad_scaler), flag(b.grad_scaler));
  note("tf32_matmul", flag(a.tf32_matmul), flag(b.tf32_matmul));
  note("tf32_cudnn", flag(a.tf32_cudnn), flag(b.tf32_cudnn));
  note("float32_matmul_precision", a.float32_matmul_precision, b.float32_matmul_precision);
  return out;
}

}  // namespace

std::vector<std::string> environment_mismatches(const Report& base, const Report& current) {
  std::vector<std::string> mismatches;
  const auto& a = base.environment;
  const auto& b = current.environment;
  if (a.cpu_model != b.cpu_model) mismatches.push_back("CPU \"" + a.cpu_model + "\" vs \"" + b.cpu_model + "\"");
  if (a.threads != b.threads) {
    mismatches.push_back("threads " + std::to_string(a.threads) + " vs " + std::to_string(b.threads));
  }
  // The allocator changes the step times themselves (docs/running.md, "What a step time describes").
  if (base.config.allocator != current.config.allocator) {
    mismatches.push_back("allocator " + std::string(to_string(base.config.allocator)) + " vs " +
                         std::string(to_string(current.config.allocator)));
  }
  std::map<CellKey, const CellResult*> base_cells;
  for (const auto& cell : base.cells) base_cells.emplace(key_of(cell), &cell);
  std::set<std::string> devices_seen;
  for (const auto& cell : current.cells) {
    const auto found = base_cells.find(key_of(cell));
    if (found == base_cells.end()) continue;
    if (devices_seen.insert(cell.device).second && model_of(a, cell.device) != model_of(b, cell.device)) {
      mismatches.push_back(cell.device + " \"" + model_of(a, cell.device) + "\" vs \"" + model_of(b, cell.device) +
                           "\"");
    }
    // A failed cell may not have recorded its settings; only compare what both ran with.
    if (cell.status != CellStatus::kOk || found->second->status != CellStatus::kOk) continue;
    if (const auto difference = settings_difference(found->second->settings, cell.settings); !difference.empty()) {
      mismatches.push_back(found->first.label() + " precision settings: " + difference);
    }
    // A run that timed the first step after a switch carries its cost, measured on a GPU (the
    // harness's interleaved_rounds.h): the same code timed both ways measures differently.
    const auto& base_rounds = found->second->rounds;
    if (base_rounds && cell.rounds && base_rounds->untimed_steps_per_block != cell.rounds->untimed_steps_per_block) {
      mismatches.push_back(found->first.label() + " untimed steps per block " +
                           std::to_string(base_rounds->untimed_steps_per_block) + " vs " +
                           std::to_string(cell.rounds->untimed_steps_per_block));
    }
  }
  return mismatches;
}

}  // namespace ampbench::reports
