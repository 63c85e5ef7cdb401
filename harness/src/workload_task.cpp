#include "ampbench/harness/workload_task.h"

#include <nlohmann/json.hpp>

#include "ampbench/reports/run_config.h"

namespace ampbench::harness {

// The task travels to the worker as JSON; both ends are this program, and the settings go through
// the one RunConfig codec the report uses.
void to_json(nlohmann::json& out, const WorkloadTask& task) {
  out = {{"config", reports::run_config_to_json(task.config)},
         {"workload", task.workload},
         {"modes", task.modes},
         {"replicate", task.replicate},
         {"inject_overflow_steps", task.inject_overflow_steps}};
}

void from_json(const nlohmann::json& in, WorkloadTask& task) {
  task.config = reports::run_config_from_json(in.at("config"), "config");
  in.at("workload").get_to(task.workload);
  in.at("modes").get_to(task.modes);
  in.at("replicate").get_to(task.replicate);
  in.at("inject_overflow_steps").get_to(task.inject_overflow_steps);
}

}  // namespace ampbench::harness
