#include "distributed/rank_groups.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "ampbench/reports/run_config.h"
#include "distributed/process_group.h"
#include "distributed/rank_merge.h"
#include "error_text.h"
#include "worker/worker_job.h"
#include "worker/worker_process.h"

namespace ampbench::harness {
namespace {

using reports::SettingError;

std::int64_t integer_variable(const char* name, std::int64_t low, std::int64_t high) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') throw SettingError(std::string(name) + " is not set (torchrun sets it)");
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < low || value > high) {
    throw SettingError(std::string(name) + "=" + text + ": expected an integer in [" + std::to_string(low) + ", " +
                       std::to_string(high) + "]");
  }
  return value;
}

}  // namespace

std::optional<TorchrunRank> torchrun_rank_from_environment() {
  if (std::getenv("WORLD_SIZE") == nullptr) return std::nullopt;
  TorchrunRank rank;
  rank.world_size = integer_variable("WORLD_SIZE", 1, reports::kMaxRanks);
  rank.rank = integer_variable("RANK", 0, rank.world_size - 1);
  rank.local_rank = std::getenv("LOCAL_RANK") == nullptr ? 0 : integer_variable("LOCAL_RANK", 0, reports::kMaxRanks);
  const char* addr = std::getenv("MASTER_ADDR");
  if (addr == nullptr || *addr == '\0') throw SettingError("MASTER_ADDR is not set (torchrun sets it)");
  rank.master_addr = addr;
  rank.master_port = integer_variable("MASTER_PORT", 1, 65535);
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  rank.agent_store = agent != nullptr && std::string(agent) == "True";
  return rank;
}

namespace detail {
namespace {

constexpr const char* kKeys = "ampbench/";
// After c10d's timeout, how long a rank gets to report before it is killed.
constexpr double kReportGraceS = 10.0;

std::string world_key(std::int64_t rank) { return std::string(kKeys) + "world_size/" + std::to_string(rank); }
std::string seen_key(std::int64_t rank) { return std::string(kKeys) + "world_size_seen/" + std::to_string(rank); }
std::string task_key(std::int64_t group) { return std::string(kKeys) + "task/" + std::to_string(group); }
std::string result_key(std::int64_t group, std::int64_t rank) {
  return std::string(kKeys) + "result/" + std::to_string(group) + "/" + std::to_string(rank);
}

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

// Rank 0's side waits at most this long for another rank's cells beyond the group's own timeout.
double group_timeout_s(const reports::RunConfig& config) {
  return worker_timeout_s(config, config.modes.size()) + config.rank_timeout_s;
}

// Rank 0 checks every rank's world size; the others check rank 0's: a rank started with another
// WORLD_SIZE stops every rank with the same one-line error. Rank 0 serves the store, so on a
// mismatch it waits until every other rank has read its world size ("seen") before it ends;
// otherwise a rank could find the store gone between its wait and its read.
void check_world_size(c10d::Store& store, const RunPlan& plan) {
  const auto& torchrun = *plan.torchrun;
  const auto world = torchrun.world_size;
  const auto timeout = milliseconds(plan.config.rank_timeout_s);
  store.set(world_key(torchrun.rank), std::to_string(world));
  std::vector<std::int64_t> others;
  if (torchrun.rank == 0) {
    for (std::int64_t rank = 1; rank < world; ++rank) others.push_back(rank);
  } else {
    others.push_back(0);
  }
  std::optional<SettingError> mismatch;
  for (const auto rank : others) {
    try {
      store.wait({world_key(rank)}, timeout);
    } catch (const std::exception&) {
      throw SettingError("WORLD_SIZE=" + std::to_string(world) + ": rank " + std::to_string(rank) +
                         " did not join within " + std::to_string(static_cast<int>(plan.config.rank_timeout_s)) +
                         " s (" + reports::flag_of(&reports::RunConfig::rank_timeout_s) + ")");
    }
    const auto theirs = store.get_to_str(world_key(rank));
    if (theirs != std::to_string(world) && !mismatch) {
      mismatch = SettingError("WORLD_SIZE=" + std::to_string(world) + " here, but rank " + std::to_string(rank) +
                              " was started with WORLD_SIZE=" + theirs);
    }
  }
  if (torchrun.rank != 0) {
    store.set(seen_key(torchrun.rank), "1");
  } else if (mismatch) {
    for (const auto rank : others) {
      try {
        store.wait({seen_key(rank)}, timeout);
      } catch (const std::exception&) {
        // That rank is gone or stuck; the mismatch is still the error to report.
      }
    }
  }
  if (mismatch) throw *mismatch;
}

}  // namespace

RankGroups::RankGroups(const RunPlan& plan) : plan_(plan) {
  const bool spawned = !plan.torchrun;
  c10d::TCPStoreOptions options;
  options.timeout = milliseconds(plan.config.rank_timeout_s);
  options.waitWorkers = false;
  std::string where;
  if (spawned) {
    // One machine: loopback, on MASTER_PORT when the caller chose one, else any free port.
    host_ = "127.0.0.1";
    const char* port = std::getenv("MASTER_PORT");
    options.port = port == nullptr ? 0 : static_cast<std::uint16_t>(integer_variable("MASTER_PORT", 1, 65535));
    options.isServer = true;
    where = "MASTER_PORT=" + std::to_string(options.port);
  } else {
    host_ = plan.torchrun->master_addr;
    options.port = static_cast<std::uint16_t>(plan.torchrun->master_port);
    options.isServer = plan.torchrun->rank == 0 && !plan.torchrun->agent_store;
    where = "MASTER_ADDR=" + host_ + " MASTER_PORT=" + std::to_string(options.port);
  }
  const QuietC10dLog quiet;  // ampbench states the outcome itself, in one line
  try {
    auto store = c10::make_intrusive<c10d::TCPStore>(host_, options);
    port_ = store->getPort();
    store_ = store;
  } catch (const std::exception& error) {
    throw SettingError(where +
                       (options.isServer ? ": cannot serve the rendezvous store: "
                                         : ": no rendezvous store answered within " +
                                               std::to_string(static_cast<int>(plan.config.rank_timeout_s)) + " s (" +
                                               reports::flag_of(&reports::RunConfig::rank_timeout_s) + "): ") +
                       detail::error_text(error));
  }
  if (!spawned) check_world_size(*store_, plan);
}

WorkloadTask RankGroups::rank_task(const WorkloadTask& task, std::int64_t rank, std::int64_t group) const {
  auto part = task;
  RankAssignment assignment;
  assignment.rank = rank;
  assignment.world_size = plan_.config.ranks;
  assignment.local_rank = plan_.torchrun ? plan_.torchrun->local_rank : rank;
  assignment.store_host = host_;
  assignment.store_port = port_;
  assignment.group = std::string(kKeys) + "group/" + std::to_string(group);
  assignment.interface_host = plan_.torchrun ? "" : "127.0.0.1";
  part.rank = assignment;
  return part;
}

std::vector<reports::CellResult> RankGroups::run(const WorkloadTask& task, const WorkloadProgressSink& sink) {
  const auto group = next_group_++;
  const auto world = plan_.config.ranks;
  std::vector<RankResult> results(static_cast<std::size_t>(world));
  const auto timeout_s = worker_timeout_s(task.config, task.modes.size());
  const auto progress = [&](const nlohmann::json& in) {
    if (sink) sink(progress_from_json(in));
  };
  try {
    if (plan_.torchrun) {
      // Rank 0 here; every other rank is another machine's (or process's) follower.
      const auto mine = rank_task(task, 0, group);
      store_->set(task_key(group), nlohmann::json(mine).dump());
      const auto outcome =
          run_in_worker(job_message(WorkerJob::kWorkload, mine), task.config.allocator, timeout_s, progress);
      results[0] = cells_of(outcome);
      for (std::int64_t rank = 1; rank < world; ++rank) {
        try {
          store_->wait({result_key(group, rank)}, milliseconds(group_timeout_s(task.config)));
          WorkerOutcome sent;
          sent.result = nlohmann::json::parse(store_->get_to_str(result_key(group, rank)));
          results[static_cast<std::size_t>(rank)] = cells_of(sent);
        } catch (const std::exception& error) {
          results[static_cast<std::size_t>(rank)].failure = "sent no cells: " + detail::error_text(error);
        }
      }
    } else {
      std::vector<nlohmann::json> tasks;
      for (std::int64_t rank = 0; rank < world; ++rank) {
        tasks.push_back(job_message(WorkerJob::kWorkload, rank_task(task, rank, group)));
      }
      // A rank still running this long after another ended is waiting for it: c10d's own timeout
      // has passed, and a little more for it to report.
      const auto outcomes = run_in_worker_group(tasks, task.config.allocator, timeout_s,
                                                task.config.rank_timeout_s + kReportGraceS, progress);
      for (std::size_t rank = 0; rank < outcomes.size(); ++rank) {
        results[rank] = cells_of(outcomes[rank]);
      }
    }
  } catch (const std::exception& error) {
    for (auto& result : results) {
      if (!result.cells && result.failure.empty()) result.failure = detail::error_text(error);
    }
  }
  return merge_ranks(rank_task(task, 0, group), results);
}

void RankGroups::finish() {
  if (!plan_.torchrun) return;
  try {
    store_->set(task_key(next_group_), R"({"done": true})");
    // The store lives in this process: give the others a moment to read the last key.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (std::int64_t rank = 1; rank < plan_.config.ranks && std::chrono::steady_clock::now() < deadline;) {
      if (store_->check({std::string(kKeys) + "finished/" + std::to_string(rank)})) {
        ++rank;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  } catch (const std::exception&) {
    // The others see the store close and stop; nothing of rank 0's report depends on them now.
  }
}

std::int64_t RankGroups::follow(const std::function<void(const std::string&)>& say) {
  const auto rank = plan_.torchrun->rank;
  std::int64_t failed = 0;
  for (std::int64_t group = 0;; ++group) {
    // Rank 0 may spend a long time on the one-rank cells and the numerics pass between groups.
    constexpr auto kBetweenGroups = std::chrono::hours(24);
    store_->wait({task_key(group)}, kBetweenGroups);
    const auto text = store_->get_to_str(task_key(group));
    const auto message = nlohmann::json::parse(text);
    if (message.contains("done")) break;
    auto task = message.get<WorkloadTask>();
    auto assignment = *task.rank;
    assignment.rank = rank;
    assignment.local_rank = plan_.torchrun->local_rank;
    task.rank = assignment;
    if (say) say("rank " + std::to_string(rank) + ": group " + std::to_string(group) + ", " + task.workload);
    const auto outcome = run_in_worker(job_message(WorkerJob::kWorkload, task), task.config.allocator,
                                       worker_timeout_s(task.config, task.modes.size()), {});
    nlohmann::json result = outcome.result ? *outcome.result : nlohmann::json{{"error", outcome.failure}};
    if (!outcome.result || result.contains("error")) ++failed;
    store_->set(result_key(group, rank), result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  store_->set(std::string(kKeys) + "finished/" + std::to_string(rank), "1");
  return failed;
}

}  // namespace detail
}  // namespace ampbench::harness
