#!/usr/bin/env python3
"""scripts/history-bisect-step through a real run: a cell that measures far slower than the history
before the change point is "bad" (exit 1), far faster "good" (exit 0); a run that cannot be made
is "skip" (125); bad usage exits 2. Usage: bisect_step_test.py AMPBENCH REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

AMPBENCH, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchkit.suite_runs import slowed  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from steady_host_ampbench import probe_level  # noqa: E402

CELL = "simplenet/bf16/cpu/default"
RUN_FLAGS = ["--time-cap", "1", "--replicates", "2", "--numerics-steps", "0", "--no-breakdown", "--threads", "1"]


def step(db, testbed, measure, *extra, cell=CELL):
    return subprocess.run([os.path.join(ROOT, "scripts/history-bisect-step"), "--judge", AMPBENCH, "--db", db,
                           "--testbed", testbed, "--cell", cell, "--before-run", "1000", "--measure", measure, *extra,
                           "--", *RUN_FLAGS], capture_output=True, text=True)


class BisectStep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        out = os.path.join(cls.dir.name, "run")
        # On the CPU by name, as the step measures CELL: on a GPU machine "auto" would pick the GPU
        # and the history would hold no run of CELL (the GPU kit's run on an H200 showed it).
        subprocess.run([AMPBENCH, "run", "--workloads", "simplenet", "--modes", "fp32,bf16", "--device", "cpu",
                        "--out", out, *RUN_FLAGS], check=True, capture_output=True)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        # The step measures with the real ampbench, its run's probe then held at this run's level.
        cls.measure = os.path.join(ROOT, "tests/history/steady_host_ampbench.py")
        os.environ.update(STEADY_HOST_AMPBENCH=AMPBENCH, STEADY_HOST_CELL=CELL,
                          STEADY_HOST_LEVEL=str(probe_level(AMPBENCH, os.path.join(out, "report.json"), CELL)))
        # Two histories of the same testbed: one 100x slower than this machine, one 100x faster.
        cls.dbs = {}
        for name, base in (("slower", 100.0), ("faster", 0.01)):
            db = os.path.join(cls.dir.name, name + ".sqlite")
            paths = []
            for i in range(6):
                path = os.path.join(cls.dir.name, f"{name}{i}.json")
                with open(path, "w") as f:
                    json.dump(slowed(report, base * (1 + 0.01 * i)), f)
                paths.append(path)
            subprocess.run([AMPBENCH, "history", "add", "--db", db, "--testbed", "bench", *paths], check=True,
                           capture_output=True)
            cls.dbs[name] = db

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_slower_than_the_history_before_is_bad(self):
        result = step(self.dbs["faster"], "bench", self.measure)
        self.assertEqual(result.returncode, 1, result.stderr[-3000:])
        self.assertIn(f"{CELL}: needs confirmation", result.stderr)

    def test_faster_than_the_history_before_is_good(self):
        result = step(self.dbs["slower"], "bench", self.measure)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])

    def test_a_run_that_cannot_be_made_is_skipped(self):
        result = step(self.dbs["slower"], "bench", self.measure, cell="nosuchworkload/bf16/cpu/default")
        self.assertEqual(result.returncode, 125, result.stderr[-3000:])

    def test_bad_usage_exits_two(self):
        for args, culprit in ((["--judge", "/nonexistent"], "--judge"), (["--before-run", "x"], "--before-run"),
                              (["--cell", "a/b"], "--cell"), (["--measure", "/nonexistent"], "--measure")):
            command = [os.path.join(ROOT, "scripts/history-bisect-step"), "--judge", AMPBENCH, "--db",
                       self.dbs["slower"], "--testbed", "bench", "--cell", CELL, "--before-run", "3", *args]
            result = subprocess.run(command, capture_output=True, text=True)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn(culprit, result.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
