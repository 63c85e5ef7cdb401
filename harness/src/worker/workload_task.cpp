#include "ampbench/harness/workload_task.h"

#include <nlohmann/json.hpp>

#include "ampbench/reports/run_config.h"

namespace ampbench::harness {

// The task travels to the worker as JSON; both ends are this program, and the settings go through
// the one RunConfig codec the report uses.
void to_json(nlohmann::json& out, const RankAssignment& rank) {
  out = {{"rank", rank.rank},
         {"world_size", rank.world_size},
         {"local_rank", rank.local_rank},
         {"store_host", rank.store_host},
         {"store_port", rank.store_port},
         {"group", rank.group},
         {"interface_host", rank.interface_host}};
}

void from_json(const nlohmann::json& in, RankAssignment& rank) {
  in.at("rank").get_to(rank.rank);
  in.at("world_size").get_to(rank.world_size);
  in.at("local_rank").get_to(rank.local_rank);
  in.at("store_host").get_to(rank.store_host);
  in.at("store_port").get_to(rank.store_port);
  in.at("group").get_to(rank.group);
  in.at("interface_host").get_to(rank.interface_host);
}

void to_json(nlohmann::json& out, const WorkloadTask& task) {
  out = {{"config", reports::run_config_to_json(task.config)},
         {"workload", task.workload},
         {"modes", task.modes},
         {"replicate", task.replicate},
         {"inject_overflow_steps", task.inject_overflow_steps}};
  if (task.rank) out["rank"] = *task.rank;
}

void from_json(const nlohmann::json& in, WorkloadTask& task) {
  task.config = reports::run_config_from_json(in.at("config"), "config");
  in.at("workload").get_to(task.workload);
  in.at("modes").get_to(task.modes);
  in.at("replicate").get_to(task.replicate);
  in.at("inject_overflow_steps").get_to(task.inject_overflow_steps);
  if (in.contains("rank")) task.rank = in.at("rank").get<RankAssignment>();
}

std::string_view to_string(WorkloadStage stage) {
  switch (stage) {
    case WorkloadStage::kBuilding:
      return "building";
    case WorkloadStage::kWarmingUp:
      return "warming up";
    case WorkloadStage::kRounds:
      return "rounds";
    case WorkloadStage::kProfiling:
      return "profiling";
    case WorkloadStage::kNumerics:
      return "numerics";
    case WorkloadStage::kNumericsFloor:
      return "numerics floor";
  }
  return "unknown";
}

std::optional<WorkloadStage> workload_stage_named(std::string_view name) {
  for (const auto stage : kWorkloadStages) {
    if (to_string(stage) == name) return stage;
  }
  return std::nullopt;
}

std::string describe(const WorkloadProgress& progress) {
  if (progress.stage == WorkloadStage::kNumericsFloor) return "numerics " + progress.mode + " floor";
  const std::string stage(to_string(progress.stage));
  return progress.mode.empty() ? stage : stage + " " + progress.mode;
}

}  // namespace ampbench::harness
