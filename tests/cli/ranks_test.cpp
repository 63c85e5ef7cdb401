// `ampbench run --ranks N` and torchrun's environment, through the real binary: data parallel over
// c10d (Gloo on loopback), what it measures, and how it fails.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>

#include "ampbench/reports/report_json.h"
#include "ampbench/workloads/registry.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using ampbench::reports::CellResult;
using ampbench::reports::Report;
using ampbench::testing::ProcessResult;
using ampbench::testing::run_process;

// A socket listening on a free loopback port: the port is in use while it lives.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(listen(fd_, 1), 0);
    socklen_t size = sizeof address;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
  }
  ~Listener() { close(fd_); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  [[nodiscard]] int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A port nothing listens on (it was free a moment ago).
int free_port() { return Listener().port(); }

// Callers keep a copy: g++ 13 warns (-Wdangling-reference) when a reference returned by a call
// with temporary string arguments is kept (the GPU kit's Ubuntu 24.04 build did).
const CellResult& cell_of(const Report& report, const std::string& workload, const std::string& mode,
                          std::int64_t ranks) {
  const auto found = std::find_if(report.cells.begin(), report.cells.end(), [&](const CellResult& cell) {
    return cell.workload == workload && cell.mode == mode && cell.ranks == ranks;
  });
  if (found == report.cells.end()) throw std::runtime_error("no cell " + workload + "/" + mode);
  return *found;
}

// The losses one process gets training the workload on the batch the ranks trained on together
// (step k: batches 2j and 2j + 1 of the sequence, j = k modulo the runner's pool of 16).
std::vector<double> one_process_losses(const std::string& workload, std::uint64_t seed, std::size_t steps) {
  ampbench::workloads::WorkloadOptions options;
  options.seed = seed;
  const auto model = ampbench::workloads::make_workload(workload, options);
  const auto optimizer = model->make_optimizer();
  std::vector<double> losses;
  for (std::size_t step = 0; step < steps; ++step) {
    const auto j = static_cast<std::int64_t>(step % 16);
    const auto first = model->make_batch(2 * j);
    const auto second = model->make_batch(2 * j + 1);
    const ampbench::workloads::Batch combined{torch::cat({first.input, second.input}),
                                              torch::cat({first.target, second.target})};
    optimizer->zero_grad();
    const auto loss = model->loss(combined);
    loss.backward();
    optimizer->step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

// On the CPU by name: these are Gloo's tests, and on a machine with one GPU "auto" would pick it and
// refuse two ranks (one GPU per rank), as the GPU kit's first run of the suite on an H200 showed.
std::vector<std::string> run_flags(const std::string& out, const std::string& workloads, const std::string& modes) {
  std::vector<std::string> flags{
      AMPBENCH_CLI,     "run",    "--workloads", workloads, "--modes",    modes, "--replicates",     "1",
      "--steps",        "8",      "--warmup",    "2",       "--time-cap", "2",   "--numerics-steps", "0",
      "--no-breakdown", "--seed", "5",           "--out",   out};
  flags.insert(flags.end(), {"--device", "cpu"});
  return flags;
}

// One run for the measurement checks (each TEST is a process of its own, and the run takes a while).
TEST(Ranks, TwoRanksMeasureLikeOneProcessOnTheCombinedBatch) {
  const ampbench::testing::ScratchDir dir;
  auto argv = run_flags((dir / "out").string(), "simplenet,transformer", "fp32,bf16");
  argv.insert(argv.end(), {"--ranks", "2"});
  const auto run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = ampbench::reports::read_report((dir / "out" / "report.json").string());
  EXPECT_EQ(report.config.ranks, 2);
  EXPECT_EQ(report.config.threads, std::max(1U, std::thread::hardware_concurrency() / 2));
  ASSERT_EQ(report.cells.size(), 8u);  // each workload and mode on one rank and on two

  for (const std::string workload : {"simplenet", "transformer"}) {
    // FP32 on two ranks is FP32 on one process with both ranks' batches, within float rounding.
    const auto fp32 = cell_of(report, workload, "fp32", 2);
    ASSERT_GE(fp32.losses.size(), 8u);
    const auto expected = one_process_losses(workload, 5, fp32.losses.size());
    for (std::size_t step = 0; step < expected.size(); ++step) {
      EXPECT_NEAR(fp32.losses[step], expected[step], 1e-4 * std::abs(expected[step]) + 1e-6)
          << workload << " step " << step;
    }
    // The losses are not those of one rank's batches alone (or the check above proves nothing).
    const auto one_rank = cell_of(report, workload, "fp32", 1);
    EXPECT_NE(one_rank.losses.front(), fp32.losses.front());

    for (const std::string mode : {"fp32", "bf16"}) {
      const auto& cell = cell_of(report, workload, mode, 2);
      ASSERT_EQ(cell.status, ampbench::reports::CellStatus::kOk) << cell.error;
      ASSERT_TRUE(cell.data_parallel.has_value());
      const auto& parallel = *cell.data_parallel;
      EXPECT_EQ(parallel.backend, "gloo");
      EXPECT_GE(parallel.buckets, 1);
      EXPECT_EQ(parallel.allreduce_times_s.size(), cell.step_times_s.size());
      EXPECT_GT(parallel.allreduce_time_s.median, 0.0);
      EXPECT_LT(parallel.allreduce_time_s.median, cell.throughput.step_time_s.median * 1.01);
      // float32 gradients of every parameter, once per step
      EXPECT_GT(parallel.allreduce_bytes_per_step, 0.0);
      EXPECT_EQ(parallel.rank_median_step_time_s.size(), 2u);
      ASSERT_TRUE(parallel.scaling_efficiency.has_value()) << workload << "/" << mode;
      EXPECT_GT(parallel.scaling_efficiency->value, 0.0);
      EXPECT_TRUE(parallel.inf_checks_agreed);
      // The group's throughput counts both ranks' samples.
      EXPECT_EQ(cell.throughput.samples_per_step, 2 * cell_of(report, workload, mode, 1).throughput.samples_per_step);
    }
    EXPECT_TRUE(cell_of(report, workload, "bf16", 2).speedup_vs_fp32.has_value());
  }
  // Both kinds of cell in the table, and the data-parallel section.
  EXPECT_NE(run.out.find("Data parallel"), std::string::npos) << run.out;
}

TEST(Ranks, CompressionHalvesTheBytesAndAnOverflowOnOneRankIsSkippedOnEvery) {
  const ampbench::testing::ScratchDir dir;
  auto argv = run_flags((dir / "out").string(), "simplenet", "fp32,fp16");
  argv.insert(argv.end(), {"--ranks", "2", "--grad-compression", "bf16"});
  // Rank 1 alone sees a non-finite loss at step 3 (warm-up counted).
  const auto run = run_process(argv, {"AMPBENCH_INJECT_OVERFLOW=1:3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = ampbench::reports::read_report((dir / "out" / "report.json").string());
  const auto fp16 = cell_of(report, "simplenet", "fp16", 2);
  ASSERT_EQ(fp16.status, ampbench::reports::CellStatus::kOk) << fp16.error;
  ASSERT_TRUE(fp16.scaler.has_value());
  // The merged cell carries rank 0's GradScaler, whose own loss was finite: it skipped anyway.
  const auto& skipped = fp16.scaler->skipped_steps;
  EXPECT_NE(std::find(skipped.begin(), skipped.end(), 3), skipped.end());
  EXPECT_TRUE(fp16.data_parallel->inf_checks_agreed);
  EXPECT_LT(fp16.scaler->scale.at(4), fp16.scaler->scale.at(3));  // backed off on every rank
  // bfloat16 on the wire: half the float32 gradients' bytes.
  const auto fp32 = cell_of(report, "simplenet", "fp32", 2);
  EXPECT_EQ(fp32.data_parallel->grad_compression, ampbench::reports::GradCompression::kBf16);
  std::int64_t parameters = 0;
  {
    ampbench::workloads::WorkloadOptions options;
    options.seed = 5;
    for (const auto& parameter : ampbench::workloads::make_workload("simplenet", options)->module().parameters()) {
      parameters += parameter.numel();
    }
  }
  EXPECT_DOUBLE_EQ(fp32.data_parallel->allreduce_bytes_per_step, 2.0 * static_cast<double>(parameters));
}

// As torchrun starts them: two processes, no --ranks, only the environment. Rank 0 writes the
// report; rank 1 writes nothing and exits 0.
TEST(Ranks, TorchrunsEnvironmentAlone) {
  const ampbench::testing::ScratchDir dir;
  const auto port = std::to_string(free_port());
  const auto rank = [&](int index) {
    const auto out = (dir / ("out" + std::to_string(index))).string();
    return run_process(run_flags(out, "simplenet", "fp32"),
                       {"RANK=" + std::to_string(index), "LOCAL_RANK=" + std::to_string(index), "WORLD_SIZE=2",
                        "LOCAL_WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port});
  };
  auto second = std::async(std::launch::async, rank, 1);
  const auto first = rank(0);
  const auto follower = second.get();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(follower.exit_code, 0) << follower.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out1"));
  const auto report = ampbench::reports::read_report((dir / "out0" / "report.json").string());
  EXPECT_EQ(report.config.ranks, 2);
  const auto cell = cell_of(report, "simplenet", "fp32", 2);
  ASSERT_EQ(cell.status, ampbench::reports::CellStatus::kOk) << cell.error;
  EXPECT_EQ(cell.data_parallel->rank_median_step_time_s.size(), 2u);
  EXPECT_TRUE(cell.data_parallel->scaling_efficiency.has_value());
  EXPECT_NE(follower.err.find("the report is rank 0's"), std::string::npos) << follower.err;
}

// torchrun itself (torch.distributed.run from the reference Python's torch): its agent serves the
// store (TORCHELASTIC_USE_AGENT_STORE=True), so rank 0 is a client like the others.
TEST(Ranks, UnderTorchrunItself) {
  const ampbench::testing::ScratchDir dir;
  const auto out = (dir / "out").string();
  std::vector<std::string> argv{AMPBENCH_PYTHON,
                                "-m",
                                "torch.distributed.run",
                                "--nproc-per-node",
                                "2",
                                "--master-port",
                                std::to_string(free_port()),
                                "--no-python"};
  const auto flags = run_flags(out, "simplenet", "fp32,bf16");
  argv.insert(argv.end(), flags.begin(), flags.end());
  const auto run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = ampbench::reports::read_report((dir / "out" / "report.json").string());
  EXPECT_EQ(report.config.ranks, 2);
  for (const std::string mode : {"fp32", "bf16"}) {
    const auto cell = cell_of(report, "simplenet", mode, 2);
    ASSERT_EQ(cell.status, ampbench::reports::CellStatus::kOk) << cell.error;
    EXPECT_TRUE(cell.data_parallel->scaling_efficiency.has_value());
  }
}

// A rank that dies or hangs fails its group's cells on every rank; the run goes on and reports.
TEST(Ranks, ADeadOrHungRankFailsItsGroupsCells) {
  for (const std::string fault : {"abort", "hang"}) {
    const ampbench::testing::ScratchDir dir;
    auto argv = run_flags((dir / "out").string(), "simplenet", "fp32");
    argv.insert(argv.end(), {"--ranks", "2", "--rank-timeout", "3"});
    const auto start = std::chrono::steady_clock::now();
    const auto run =
        run_process(argv, {"AMPBENCH_ABORT_CELL=simplenet/fp32", "AMPBENCH_FAULTY_RANK=1", "AMPBENCH_FAULT=" + fault});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(run.exit_code, 1) << fault << ": " << run.err;
    const auto report = ampbench::reports::read_report((dir / "out" / "report.json").string());
    EXPECT_EQ(cell_of(report, "simplenet", "fp32", 1).status, ampbench::reports::CellStatus::kOk);
    const auto group = cell_of(report, "simplenet", "fp32", 2);
    EXPECT_EQ(group.status, ampbench::reports::CellStatus::kFailed) << fault;
    EXPECT_NE(group.error.find("rank "), std::string::npos) << group.error;
    // c10d's timeout (3 s) and the grace to report (10 s) bound it, plus the one-rank cells' run.
    EXPECT_LT(seconds, 60.0) << fault;
  }
}

// The CLI's bad-input contract: exit 2, the error on the first line, nothing written, and nothing
// measured first (the rendezvous comes before the GEMM peak).
void expect_usage_error(const ProcessResult& result, const std::string& names, const std::filesystem::path& out) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  const auto first_line = result.err.substr(0, result.err.find('\n'));
  EXPECT_EQ(first_line.rfind("ampbench: error: ", 0), 0u) << result.err;
  EXPECT_NE(first_line.find(names), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("GEMM peak"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << out;
}

TEST(Ranks, BadRendezvousIsAOneLineErrorAndNoOutput) {
  const ampbench::testing::ScratchDir dir;
  const auto out = dir / "out";
  const auto flags = run_flags(out.string(), "simplenet", "fp32");
  const std::vector<std::string> torchrun{"MASTER_ADDR=127.0.0.1", "LOCAL_RANK=0"};
  {
    const Listener busy;  // the port is taken
    auto argv = flags;
    argv.insert(argv.end(), {"--ranks", "2"});
    expect_usage_error(run_process(argv, {"MASTER_PORT=" + std::to_string(busy.port())}), "MASTER_PORT", out);
  }
  {
    // Rank 1 with no rank 0 to serve the store.
    auto argv = flags;
    argv.insert(argv.end(), {"--rank-timeout", "2"});
    auto env = torchrun;
    env.insert(env.end(), {"RANK=1", "WORLD_SIZE=2", "MASTER_PORT=" + std::to_string(free_port())});
    expect_usage_error(run_process(argv, env), "no rendezvous store answered within 2 s", out);
  }
  {
    // Two ranks started with different world sizes: each says so.
    const auto port = "MASTER_PORT=" + std::to_string(free_port());
    auto argv = flags;
    argv.insert(argv.end(), {"--rank-timeout", "10"});
    auto zero_env = torchrun;
    zero_env.insert(zero_env.end(), {"RANK=0", "WORLD_SIZE=2", port});
    auto one_env = torchrun;
    one_env.insert(one_env.end(), {"RANK=1", "WORLD_SIZE=3", port});
    auto one = std::async(std::launch::async, [&] { return run_process(argv, one_env); });
    const auto zero = run_process(argv, zero_env);
    expect_usage_error(zero, "WORLD_SIZE=2 here, but rank 1 was started with WORLD_SIZE=3", out);
    expect_usage_error(one.get(), "WORLD_SIZE=3 here, but rank 0 was started with WORLD_SIZE=2", out);
  }
  {
    auto argv = flags;
    argv.insert(argv.end(), {"--ranks", "3"});
    auto env = torchrun;
    env.insert(env.end(), {"RANK=0", "WORLD_SIZE=2", "MASTER_PORT=" + std::to_string(free_port())});
    expect_usage_error(run_process(argv, env), "--ranks 3: the environment's WORLD_SIZE is 2", out);
  }
  {
    auto env = torchrun;
    env.insert(env.end(), {"RANK=2", "WORLD_SIZE=2", "MASTER_PORT=29500"});
    expect_usage_error(run_process(flags, env), "RANK=2", out);
  }
  {
    auto argv = flags;
    argv.insert(argv.end(), {"--ranks", "2", "--no-isolate"});
    expect_usage_error(run_process(argv), "--ranks 2: each rank is a process of its own", out);
  }
  {
    auto argv = flags;
    argv.insert(argv.end(), {"--grad-compression", "fp16"});
    expect_usage_error(run_process(argv), "--grad-compression fp16: needs --ranks 2 or more", out);
  }
  {
    auto argv = flags;
    argv.insert(argv.end(), {"--ranks", "2", "--grad-compression", "fp8"});
    expect_usage_error(run_process(argv), "--grad-compression: 'fp8' is not none, fp16 or bf16", out);
  }
}

}  // namespace
