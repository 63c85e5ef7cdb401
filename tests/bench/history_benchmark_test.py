"""bench/history_benchmark.py's store of 10,000 runs: its scattered copies must be runs that
`history import` takes, through the real binary (a stricter import once refused them, and
nothing but the benchmark's cost figures noticed).

Usage: history_benchmark_test.py AMPBENCH (the built binary)."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS.parent / "bench"))
import history_benchmark  # noqa: E402

BINARY = sys.argv.pop(1) if len(sys.argv) > 1 else "build/default/cli/ampbench"
REPORT = TESTS / "reports/fixtures/report-v1.json"


def exported(db: Path) -> list:
    done = subprocess.run([BINARY, "history", "export", "--db", str(db)], capture_output=True, text=True,
                          check=True, timeout=120)
    return [json.loads(line) for line in done.stdout.splitlines()]


class BigHistoryTest(unittest.TestCase):
    def test_scattered_copies_import_with_their_intervals_moved_and_their_draws_kept(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            source, big = Path(folder, "source.sqlite"), Path(folder, "big.sqlite")
            subprocess.run([BINARY, "history", "add", str(REPORT), "--db", str(source)], capture_output=True,
                           check=True, timeout=120)
            history_benchmark.big_history(BINARY, str(source), str(big), 3, str(Path(folder, "big.jsonl")))
            (original,) = exported(source)
            copies = exported(big)
        self.assertEqual(len(copies), 3)
        self.assertEqual(len({copy["digest"] for copy in copies}), 3)
        for copy in copies:
            for cell, cell_copy in zip(original["cells"], copy["cells"]):
                for name, (value, low, high, draws) in cell["figures"].items():
                    value_copy, low_copy, high_copy, draws_copy = cell_copy["figures"][name]
                    self.assertEqual(draws_copy, draws)
                    if value == 0.0:
                        continue
                    scale = value_copy / value
                    self.assertNotEqual(scale, 1.0)
                    self.assertAlmostEqual(low_copy, low * scale, delta=abs(low) * 1e-9)
                    self.assertAlmostEqual(high_copy, high * scale, delta=abs(high) * 1e-9)


if __name__ == "__main__":
    unittest.main()
