#include "ampbench/harness/cell.h"

#include <nlohmann/json.hpp>

namespace ampbench::harness {

// The spec travels to the cell's child process as JSON; both ends are this program.
void to_json(nlohmann::json& out, const CellSpec& spec) {
  out = {{"workload", spec.workload},
         {"mode", spec.mode},
         {"device", spec.device},
         {"preset", spec.preset},
         {"warmup", spec.warmup},
         {"min_steps", spec.min_steps},
         {"max_steps", spec.max_steps},
         {"max_noise", spec.max_noise},
         {"time_cap_s", spec.time_cap_s},
         {"seed", spec.seed},
         {"threads", spec.threads},
         {"batch", nullptr},
         {"inject_overflow_steps", spec.inject_overflow_steps}};
  if (spec.batch) out["batch"] = *spec.batch;
}

void from_json(const nlohmann::json& in, CellSpec& spec) {
  in.at("workload").get_to(spec.workload);
  in.at("mode").get_to(spec.mode);
  in.at("device").get_to(spec.device);
  in.at("preset").get_to(spec.preset);
  in.at("warmup").get_to(spec.warmup);
  in.at("min_steps").get_to(spec.min_steps);
  in.at("max_steps").get_to(spec.max_steps);
  in.at("max_noise").get_to(spec.max_noise);
  in.at("time_cap_s").get_to(spec.time_cap_s);
  in.at("seed").get_to(spec.seed);
  in.at("threads").get_to(spec.threads);
  if (!in.at("batch").is_null()) spec.batch = in.at("batch").get<std::int64_t>();
  in.at("inject_overflow_steps").get_to(spec.inject_overflow_steps);
}

}  // namespace ampbench::harness
