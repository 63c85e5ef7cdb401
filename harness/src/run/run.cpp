// run (run.h): the GEMM peak and every workload in worker processes (or in this one without
// isolation), replicate by replicate; the cells related and explained. Planning: run_plan.cpp.
#include "ampbench/harness/run.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/explain.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/roofline.h"
#include "distributed/rank_groups.h"
#include "machine/energy_meter.h"
#include "machine/gemm_peak.h"
#include "measure/numerics_pass.h"
#include "run/memory_preflight.h"
#include "run/replicates.h"
#include "worker/worker_allocator.h"
#include "worker/worker_job.h"
#include "worker/worker_process.h"

namespace ampbench::harness {
namespace {

std::vector<reports::CellResult> failed_cells(const WorkloadTask& task, const std::string& error) {
  std::vector<reports::CellResult> cells;
  for (const auto& mode : task.modes) cells.push_back(detail::failed_cell(task, mode, error));
  return cells;
}

// The workload in its own process. If it crashes (a signal of its own: an abort, a segfault, an
// out-of-memory kill), each mode is run again alone, so only the mode that crashes loses its cell;
// the others are then measured without the rest (their rounds say which modes they were
// interleaved with), and `reruns` records it so the report says so.
std::vector<reports::CellResult> run_isolated(const WorkloadTask& task, const WorkloadProgressSink& sink,
                                              std::vector<reports::WorkerRerun>& reruns) {
  const auto attempt = [&](const WorkloadTask& part) {
    const auto outcome =
        detail::run_in_worker(detail::job_message(detail::WorkerJob::kWorkload, part), part.config.allocator,
                              worker_timeout_s(part.config, part.modes.size()),
                              [&](const nlohmann::json& progress) { sink(detail::progress_from_json(progress)); });
    auto cells = detail::cells_of(outcome);
    if (cells.cells) return std::pair{std::move(*cells.cells), false};
    return std::pair{failed_cells(part, cells.failure), outcome.crashed};
  };
  auto [cells, crashed] = attempt(task);
  if (!crashed || task.modes.size() == 1) return cells;
  reruns.push_back({task.workload, 1, task.replicate, cells.front().error, task.modes, task.modes});
  cells.clear();
  for (const auto& mode : task.modes) {
    auto alone = task;
    alone.modes = {mode};
    auto part = attempt(alone).first;
    cells.push_back(std::move(part.front()));
  }
  return cells;
}

// Later replicates run only the modes that stood in the first, with the first's round size, so
// every replicate's rounds are alike.
void keep_for_later_replicates(const std::vector<reports::CellResult>& first, WorkloadTask& task) {
  task.modes = detail::modes_standing(first);
  const auto timed = std::find_if(first.begin(), first.end(), [](const auto& cell) { return cell.rounds.has_value(); });
  if (task.config.round_steps == 0 && timed != first.end()) task.config.round_steps = timed->rounds->steps_per_round;
}

// The numerics pass has no time cap of its own (its length is the point): its worker gets twenty
// times what its steps cost at the timed cells' median step time, plus the start-up allowance.
double numerics_timeout_s(const reports::RunConfig& config, const std::vector<reports::CellResult>& cells) {
  if (config.worker_timeout_s > 0.0) return config.worker_timeout_s;
  double step_s = 0.0;
  for (const auto& cell : cells) {
    if (cell.status == reports::CellStatus::kOk) step_s += cell.throughput.step_time_s.median;
  }
  return 120.0 + 20.0 * step_s * static_cast<double>(config.numerics_steps.value_or(0));
}

std::vector<reports::Numerics> numerics_in_worker(const WorkloadTask& task, double timeout_s,
                                                  const WorkloadProgressSink& sink) {
  const auto outcome =
      detail::run_in_worker(detail::job_message(detail::WorkerJob::kNumerics, task), task.config.allocator, timeout_s,
                            [&](const nlohmann::json& progress) { sink(detail::progress_from_json(progress)); });
  std::string failure = outcome.failure;
  if (outcome.result && outcome.result->contains("error")) failure = outcome.result->at("error").get<std::string>();
  if (outcome.result && outcome.result->contains("numerics")) {
    try {
      return outcome.result->at("numerics").get<std::vector<reports::Numerics>>();
    } catch (const std::exception& error) {
      failure = std::string("unreadable numerics result: ") + error.what();
    }
  }
  std::vector<reports::Numerics> failed(task.modes.size(), planned_numerics(*task.config.numerics_steps));
  for (auto& numerics : failed) numerics.error = "numerics pass: " + failure;
  return failed;
}

// A workload's numerics pass, after its timed workers, for the modes that stood through them;
// each mode's result goes to its cell. Returns the seconds it took (0 when it did not run).
double add_numerics(WorkloadTask task, std::vector<reports::CellResult>& cells, const WorkloadProgressSink& sink) {
  task.modes = detail::modes_standing(cells);
  if (task.config.numerics_steps.value_or(0) == 0 || task.modes.empty()) return 0.0;
  const auto start = std::chrono::steady_clock::now();
  const auto results = task.config.isolate ? numerics_in_worker(task, numerics_timeout_s(task.config, cells), sink)
                                           : run_numerics(task, sink);
  for (std::size_t i = 0; i < results.size() && i < task.modes.size(); ++i) {
    const auto cell = std::find_if(cells.begin(), cells.end(), [&](const auto& c) { return c.mode == task.modes[i]; });
    if (cell != cells.end()) cell->numerics = results[i];
  }
  return results.empty() ? 0.0 : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Before anything is measured on a GPU: whether every workload fits the memory a worker finds free
// (run_plan's refusals are settings alone; this one needs the device, in a worker like the cells).
void require_memory_fits(const RunPlan& plan) {
  const auto& config = plan.config;
  if (config.device == "cpu") return;
  std::optional<std::int64_t> free_bytes;
  if (!config.isolate) {
    free_bytes = detail::free_device_bytes(config.device);
  } else {
    constexpr double kDeviceMemoryTimeoutS = 120.0;  // a CUDA context in seconds; this only catches a hang
    const auto outcome = detail::run_in_worker(detail::device_memory_message(config.device), config.allocator,
                                               kDeviceMemoryTimeoutS, {});
    if (outcome.result && outcome.result->contains("free_bytes") && !outcome.result->at("free_bytes").is_null()) {
      free_bytes = outcome.result->at("free_bytes").get<std::int64_t>();
    }
  }
  // Without a figure (a worker that could not start CUDA) the cells say why themselves.
  if (free_bytes) detail::require_memory_fits(config, *free_bytes);
}

// The GEMM peaks and the allocator record, which the first worker also reports (with
// --no-isolate, plan_run applied the policy to this process and recorded it).
std::vector<reports::GemmPeak> gemm_peaks(const RunPlan& plan, std::optional<reports::AllocatorRecord>& allocator) {
  const auto& config = plan.config;
  if (!config.isolate) {
    if (!allocator) throw std::invalid_argument("run: the plan records no allocator policy (make it with plan_run)");
    allocator->page_fault_s = detail::measure_page_fault_s();
    return measure_gemm_peaks(config.device, config.threads);
  }
  // In a worker like the cells, so this process never holds a GPU context or its cached memory
  // while the cells run (and a GPU in EXCLUSIVE_PROCESS mode stays usable by them).
  constexpr double kGemmPeakTimeoutS = 300.0;  // it takes about a second; this only catches a hang
  const auto outcome = detail::run_in_worker(detail::gemm_peaks_message(config.device, config.threads),
                                             config.allocator, kGemmPeakTimeoutS, {});
  std::string reason = outcome.failure;
  if (outcome.result && outcome.result->contains("gemm_peaks")) {
    allocator = outcome.result->at("allocator").get<reports::AllocatorRecord>();
    return outcome.result->at("gemm_peaks").get<std::vector<reports::GemmPeak>>();
  }
  if (outcome.result && outcome.result->contains("error")) reason = outcome.result->at("error").get<std::string>();
  reports::GemmPeak unavailable;
  unavailable.device = config.device;
  unavailable.dtype = "float32";
  unavailable.status = reports::MeasurementStatus::kUnavailable;
  unavailable.reason = reason;
  return {unavailable};
}

// Where a workload's turn runs: in one process, or, with several ranks, as a group on every rank.
enum class Where { kOneProcess, kRankGroup };

struct Turn {
  Where where = Where::kOneProcess;
  WorkloadTask task;
  std::vector<std::vector<reports::CellResult>> replicates;
};

// One replicate of a turn; the first one decides which modes (and round size) the later ones run.
void run_turn(Turn& turn, std::int64_t replicate, const RunPlan& plan, detail::RankGroups* groups,
              const WorkloadProgressSink& sink, std::vector<reports::WorkerRerun>& reruns) {
  turn.task.replicate = replicate;
  if (turn.where == Where::kRankGroup) {
    turn.replicates.push_back(groups->run(turn.task, sink));
  } else {
    turn.replicates.push_back(plan.config.isolate ? run_isolated(turn.task, sink, reruns)
                                                  : run_workload(turn.task, sink));
  }
  if (replicate == 0) keep_for_later_replicates(turn.replicates.front(), turn.task);
}

// After a workload's last replicate: its one-process cells joined, with the numerics pass, then
// its group's; each announced through `event` (the one `sink` reports progress through).
std::vector<reports::CellResult> finish_workload(const std::vector<Turn>& turns, RunEvent& event,
                                                 const WorkloadProgressSink& sink,
                                                 const std::function<void(RunEvent)>& notify) {
  auto cells = detail::join_replicates(turns.front().replicates);
  event.replicate_count = 1;  // the numerics pass is one process of its own
  event.seconds = add_numerics(turns.front().task, cells, sink);
  if (event.seconds > 0.0) {
    event.kind = RunEvent::Kind::kNumericsFinished;
    notify(event);
  }
  if (turns.size() > 1) {
    auto group_cells = detail::join_replicates(turns[1].replicates);
    std::move(group_cells.begin(), group_cells.end(), std::back_inserter(cells));
  }
  for (const auto& cell : cells) {
    event.kind = RunEvent::Kind::kCellFinished;
    event.cell = &cell;
    notify(event);
  }
  return cells;
}

// Replicate by replicate, every workload in turn, so each workload's worker processes spread
// over the run and meet the machine at different moments. With several ranks each turn is the
// workload on one rank (its own worker, the scaling's reference) and then as a group on every rank.
// A workload's cells are joined (and announced) after its last replicate, or as soon as every mode
// failed in the first; they are returned in workload order, each workload's one-rank cells first.
std::vector<reports::CellResult> run_workloads(const RunPlan& plan, detail::RankGroups* groups,
                                               std::vector<reports::WorkerRerun>& reruns,
                                               const std::function<void(RunEvent)>& notify) {
  const auto& workloads = plan.config.workloads;
  std::vector<std::vector<Turn>> turns(workloads.size());
  for (std::size_t index = 0; index < workloads.size(); ++index) {
    for (const auto where : {Where::kOneProcess, Where::kRankGroup}) {
      if (where == Where::kRankGroup && groups == nullptr) continue;
      turns[index].push_back({where, {plan.config, workloads[index], plan.config.modes, 0, {}, {}}, {}});
    }
  }
  std::vector<std::vector<reports::CellResult>> joined(workloads.size());
  std::vector<bool> done(workloads.size(), false);
  for (std::int64_t replicate = 0; replicate < plan.config.replicates; ++replicate) {
    for (std::size_t index = 0; index < workloads.size(); ++index) {
      if (done[index]) continue;
      RunEvent event;
      event.workload_index = index;
      event.workload_count = workloads.size();
      event.replicate = replicate;
      event.replicate_count = plan.config.replicates;
      event.workload = workloads[index];
      const WorkloadProgressSink sink = [&](const WorkloadProgress& progress) {
        event.kind = RunEvent::Kind::kWorkloadProgress;
        event.progress = progress;
        notify(event);
      };
      bool last = true;
      for (auto& turn : turns[index]) {
        if (turn.task.modes.empty()) continue;  // every mode failed in the first replicate
        run_turn(turn, replicate, plan, groups, sink, reruns);
        if (replicate + 1 < plan.config.replicates && !turn.task.modes.empty()) last = false;
      }
      if (!last) continue;
      joined[index] = finish_workload(turns[index], event, sink, notify);
      done[index] = true;
    }
  }
  std::vector<reports::CellResult> cells;
  for (auto& workload_cells : joined)
    std::move(workload_cells.begin(), workload_cells.end(), std::back_inserter(cells));
  return cells;
}

}  // namespace

double worker_timeout_s(const reports::RunConfig& config, std::size_t modes) {
  if (config.worker_timeout_s > 0.0) return config.worker_timeout_s;
  return 120.0 + 5.0 * config.time_cap_s * static_cast<double>(std::max<std::size_t>(modes, 1));
}

std::int64_t follow_rank_zero(const RunPlan& plan, const std::function<void(const std::string&)>& say) {
  detail::RankGroups groups(plan);
  return groups.follow(say);
}

reports::Report run(const RunPlan& plan, const RunObserver& observe) {
  const std::function<void(RunEvent)> notify = [&](const RunEvent& event) {
    if (observe) observe(event);
  };
  // The rendezvous first: a port in use or a rank with another world size stops the run before
  // anything is measured.
  std::optional<detail::RankGroups> groups;
  if (plan.config.ranks > 1) groups.emplace(plan);
  // Then a preset or batch that cannot fit the GPU, refused with its estimate before any output.
  require_memory_fits(plan);
  reports::Report report;
  report.environment = plan.environment;
  report.config = plan.config;
  report.environment.energy_meter = detail::energy_meter_record(c10::Device(plan.config.device));
  RunEvent started;
  started.kind = RunEvent::Kind::kGemmPeakStarted;
  notify(started);
  const auto start = std::chrono::steady_clock::now();
  report.environment.gemm_peaks = gemm_peaks(plan, report.environment.allocator);
  RunEvent measured;
  measured.kind = RunEvent::Kind::kGemmPeakMeasured;
  measured.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  notify(measured);

  report.cells = run_workloads(plan, groups ? &*groups : nullptr, report.reruns, notify);
  if (groups) groups->finish();
  reports::relate_to_fp32(report);
  reports::fill_fractions_of_peak(report);
  report.explanation = reports::explain(report);
  return report;
}

}  // namespace ampbench::harness
