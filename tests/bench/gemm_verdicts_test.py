"""bench/studies/gemm_verdicts.py: the verdict explain gave for a cell, and the one the peaks alone give."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "studies"))
import gemm_verdicts  # noqa: E402

# Findings as report.json keeps them (fields shortened): the float16 cell's GEMM finding comes after
# another of its findings, and a transformer cell's GEMM finding must not be taken for SimpleNet's.
REPORT = {"explanation": [
    {"cell": "transformer/fp16/cpu/default", "id": "no-native-gemm"},
    {"cell": "simplenet/fp16/cpu/default", "id": "casts-and-float32-ops"},
    {"cell": "simplenet/fp16/cpu/default", "id": "gemm-like-float32"},
    {"cell": "simplenet/bf16/cpu/default", "id": "native-gemm"},
]}


class GemmVerdictsTest(unittest.TestCase):
    def test_the_gemm_finding_of_the_simplenet_cell_is_read(self) -> None:
        self.assertEqual(gemm_verdicts.explain_verdict(REPORT, "float16"), "gemm-like-float32")
        self.assertEqual(gemm_verdicts.explain_verdict(REPORT, "bfloat16"), "native-gemm")
        self.assertEqual(gemm_verdicts.explain_verdict({"explanation": []}, "float16"), "-")

    def test_the_peaks_alone_call_a_dtype_faster_from_float32s_peak_up(self) -> None:
        peaks = {"float32": {"flops_per_s": 200e9}, "float16": {"flops_per_s": 202e9},
                 "bfloat16": {"flops_per_s": 190e9}}
        self.assertEqual(gemm_verdicts.verdict_by_peaks(peaks, "float16"), "native-gemm")
        self.assertEqual(gemm_verdicts.verdict_by_peaks(peaks, "bfloat16"), "no-native-gemm")

    def test_torch_is_timed_at_the_sizes_the_report_paired(self) -> None:
        peaks = {"float32": {"matrix_size": 256},
                 "float16": {"matrix_size": 1024, "versus_float32": {"matrix_size": 512}},
                 "bfloat16": {"matrix_size": 1024, "versus_float32": {}}}
        self.assertEqual(gemm_verdicts.paired_sizes(peaks, "float16"), (512, 512))
        # No size shared (or an older report): each at its own peak's size.
        self.assertEqual(gemm_verdicts.paired_sizes(peaks, "bfloat16"), (1024, 256))


if __name__ == "__main__":
    unittest.main()
