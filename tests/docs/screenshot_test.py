"""scripts/screenshot-report, which retakes the front page's picture of the HTML report: it must
write a PNG of the size asked for from a report, print the report's table, and refuse bad
arguments with one line naming them (exit 2, nothing written).

Usage: screenshot_test.py AMPBENCH_BINARY (the built CLI, so the script does not build)."""

import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "screenshot-report"
REPORT = ROOT / "tests" / "reports" / "fixtures" / "report-v1.json"
BINARY = None


def run(*args):
    return subprocess.run([str(SCRIPT), "--binary", BINARY, *args], capture_output=True, text=True, timeout=300)


def png_size(path):
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


class ScreenshotReport(unittest.TestCase):
    def test_writes_a_png_of_the_asked_size_and_prints_the_table(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "shot.png"
            result = run("--from", str(REPORT), "--out", str(out), "--size", "900x700")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(png_size(out), (900, 700))
            self.assertIn("step time (95% CI)", result.stdout)
            # A blank page compresses to a few kilobytes; the rendered report does not.
            self.assertGreater(out.stat().st_size, 20_000)

    def test_bad_arguments_are_one_line_naming_them_and_write_nothing(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "shot.png"
            cases = {("--size", "wide"): "--size", ("--from", str(Path(scratch) / "none.json")): "--from",
                     ("--out", str(Path(scratch) / "no" / "shot.png")): "--out", ("--colour", "red"): "--colour"}
            for args, named in cases.items():
                result = run("--from", str(REPORT), "--out", str(out), *args)
                self.assertEqual(result.returncode, 2, args)
                first = result.stderr.splitlines()[0]
                self.assertIn(named, first)
                self.assertFalse(out.exists(), args)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
