"""The Python benchmarks' copies of C++ constants hold the C++ values.

bench/benchkit re-implements a few of the report's rules to read its JSON (the slow-machine rule, the
batch pool a paired worker cycles through); each such constant is pinned here to the constexpr it
mirrors, read from the C++ source, so that a change on one side fails until the other follows.
"""

import ast
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (Python file, its constant) -> (C++ file, its constexpr).
MIRRORED = {
    ("bench/benchkit/machine_state.py", "SLOW_MACHINE_FACTOR"): ("reports/include/ampbench/reports/derived_figures.h",
                                                        "kSlowMachineFactor"),
    ("bench/benchkit/machine_state.py", "USUAL_QUANTILE"): ("reports/src/stats/slow_machine_rounds.cpp", "kUsualProbeQuantile"),
    ("bench/benchkit/python_loop.py", "BATCH_POOL"): ("harness/src/measure/mode_session.h", "kBatchPool"),
}


def python_constant(path, name):
    """The value of a module-level NAME = <number> in the Python file, without importing it."""
    for node in ast.parse((ROOT / path).read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path} assigns no {name}")


def cpp_constant(text, name):
    """The value of the one `constexpr <type> NAME = <number>;` in C++ source text."""
    found = re.findall(rf"constexpr\s+[\w:]+\s+{name}\s*=\s*([-+0-9.eE]+)\s*;", text)
    if len(found) != 1:
        raise AssertionError(f"{len(found)} constexpr definitions of {name}, expected one")
    return float(found[0])


class SharedConstants(unittest.TestCase):
    def test_every_mirrored_constant_holds_the_cpp_value(self):
        for (py_file, py_name), (cpp_file, cpp_name) in MIRRORED.items():
            with self.subTest(constant=py_name):
                cpp_value = cpp_constant((ROOT / cpp_file).read_text(), cpp_name)
                self.assertEqual(python_constant(py_file, py_name), cpp_value,
                                 f"{py_file} {py_name} differs from {cpp_file} {cpp_name}")

    def test_the_cpp_side_is_read_as_written(self):
        self.assertEqual(cpp_constant("inline constexpr double kSlowMachineFactor = 1.25;", "kSlowMachineFactor"), 1.25)
        self.assertEqual(cpp_constant("constexpr std::int64_t kBatchPool = 16;  // pool", "kBatchPool"), 16)
        with self.assertRaises(AssertionError):  # a second definition is ambiguous, none is missing
            cpp_constant("constexpr int kA = 1; constexpr int kA = 2;", "kA")
        with self.assertRaises(AssertionError):
            cpp_constant("constexpr int kB = 1;", "kA")


if __name__ == "__main__":
    unittest.main()
