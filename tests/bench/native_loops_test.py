"""The plain LibTorch loops ampbench's steps are held to, run as built: bare_loop_cell (validity.py's
independent loop) and harness_overhead_benchmark in each mode (bench/native_loop/native_training_step.h).

Usage: native_loops_test.py BENCH_DIR (the folder of the built bench binaries)."""

import json
import math
import subprocess
import sys
import unittest
from pathlib import Path

BENCH_DIR = Path(sys.argv.pop(1)) if len(sys.argv) > 1 else Path("build/default/bench")
MODES = ("fp32", "fp16", "bf16")


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BENCH_DIR / command[0]), *command[1:]], capture_output=True, text=True,
                          timeout=600)


def benchmark_counters(mode: str, name: str, *extra: str) -> dict:
    done = run("harness_overhead_benchmark", "--workload=simplenet", f"--mode={mode}",
               f"--benchmark_filter=^{name}(/|$)", "--benchmark_format=json", *extra)
    if done.returncode != 0:
        raise AssertionError(f"harness_overhead_benchmark --mode={mode} {name}: {done.stderr[-800:]}")
    (result,) = json.loads(done.stdout)["benchmarks"]
    return result


class BareLoopCellTest(unittest.TestCase):
    def test_every_mode_trains_and_times_each_step(self) -> None:
        for mode in MODES:
            with self.subTest(mode=mode):
                done = run("bare_loop_cell", "simplenet", mode, "seed", "--steps", "6", "--warmup", "1",
                           "--threads", "1", "--round-steps", "3")
                self.assertEqual(done.returncode, 0, done.stderr)
                cell = json.loads(done.stdout.strip().splitlines()[-1])
                self.assertEqual(len(cell["step_s"]), 6)
                self.assertEqual(len(cell["probe_s"]), 6)
                self.assertTrue(all(math.isfinite(t) and t > 0 for t in cell["step_s"] + cell["probe_s"]))

    def test_an_unknown_mode_is_refused(self) -> None:
        done = run("bare_loop_cell", "simplenet", "fp64", "seed", "--steps", "1", "--warmup", "0",
                   "--threads", "1", "--round-steps", "1")
        self.assertEqual(done.returncode, 2)


class HarnessOverheadModesTest(unittest.TestCase):
    def test_the_bare_step_runs_under_autocast_in_an_amp_mode(self) -> None:
        # Autocast's casts allocate the lower-precision copies: a bare AMP step that ran without
        # autocast would allocate as FP32's does.
        fp32 = benchmark_counters("fp32", "BM_Step_Bare", "--benchmark_min_time=0.05")
        for mode in ("fp16", "bf16"):
            with self.subTest(mode=mode):
                amp = benchmark_counters(mode, "BM_Step_Bare", "--benchmark_min_time=0.05")
                self.assertGreater(amp["cpu_allocations_per_step"], fp32["cpu_allocations_per_step"])

    def test_an_amp_mode_pairs_bare_and_harnessed_steps(self) -> None:
        paired = benchmark_counters("bf16", "BM_Step_Paired")
        self.assertGreater(paired["bare_step_us"], 0)
        for median, interval in (("overhead_us_per_step", "overhead_us_ci"),
                                 ("recorded_excess_us", "recorded_excess_us_ci")):
            self.assertLessEqual(paired[f"{interval}_low"], paired[median])
            self.assertLessEqual(paired[median], paired[f"{interval}_high"])

    def test_a_mode_without_a_plain_loop_is_refused_naming_the_flag(self) -> None:
        done = run("harness_overhead_benchmark", "--mode=fp16-noscale")
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        self.assertIn("--mode", done.stderr)


if __name__ == "__main__":
    unittest.main()
