"""Side by side: ampbench's C++ harness against the PyTorch Python loop of the AMP tutorials.

Method. For each (workload, mode) cell, on the CPU, in one invocation on one machine:
  (a) the real `ampbench run` binary trains the cell (one process per cell and round) and its
      report.json gives the per-step times (`step_times_s`);
  (b) this script trains a Python replica of the same workload with the tutorials' loop:
      `torch.autocast` around forward + loss (none for fp32), `torch.amp.GradScaler` for fp16
      (none for fp32/bf16), `optimizer.zero_grad()`, `scaler.scale(loss).backward()`,
      `scaler.step(optimizer)`, `scaler.update()`, and `loss.item()` every step; each step is
      timed with time.perf_counter.
Both sides use the same architecture and sizes (the C++ presets, transcribed below), batch size,
optimizer and hyper-parameters, warm-up and timed step counts, thread count, and a pool of 16
pre-generated batches cycled through (data generation is not timed). Weights and data values
differ; shapes and dtypes do not. The parameter count of every Python replica is checked against
the count the C++ definitions give, and FLOPs and samples per step against ampbench's report.
R rounds interleave the sides (a then b in odd rounds, b then a in even ones, so drift cancels);
the per-step samples of all rounds are pooled per side.

Figures per cell: each side's median step time; the ratio ampbench/PyTorch of the medians with a
95% percentile-bootstrap CI (steps resampled within each side, fixed seed); each tool's speedup
over its own fp32 cell (fp32 median / mode median, same bootstrap) and whether the two speedup
CIs overlap.

Targets (issue #9), printed as PASS/MISS and never tuned for: SimpleNet at `seed` sizes ratio
<= 0.5 (Python's per-step overhead dominates such a tiny model); SimpleCNN and TransformerBlock
ratio <= 1.02; in every AMP cell the two speedups' CIs overlap.

Usage: .venv/bin/python bench/side_by_side.py [--rounds 3] [--json side_by_side.json] ...
(see --help; the defaults take about 5 minutes on a quiet 2-core AVX2 CPU).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import torch

from benchkit.intervals import Interval, bootstrap_median_ratio, finite_or_none, intervals_overlap
from benchkit.paths import DEFAULT_BINARY
from benchkit.python_loop import (BATCH_POOL, MODES, PRESETS, WORKLOADS, RunSettings, run_python_cell,
                                  workload_recipe)

DEFAULT_PRESETS = {"simplenet": "seed", "simplecnn": "seed", "transformer": "default"}
# Issue #9's targets for ampbench/PyTorch; SimpleNet's holds at the tutorial's (`seed`) sizes only.
RATIO_TARGETS = {("simplenet", "seed"): 0.5, **{(name, preset): 1.02 for name in ("simplecnn", "transformer")
                                                for preset in PRESETS}}
# Estimated from the step times on a 2-core AVX2 CPU (docs/performance.md) plus ~2.5 s of process
# start per ampbench cell and round; a machine busy compiling takes several times longer.
EXPECTED_RUN_TIME = "about 5 minutes on a quiet 2-core AVX2 CPU, mostly SimpleCNN's AMP cells"


# ---------------------------------------------------------------------------------------------
# The two sides


@dataclass
class SideResult:
    step_times_s: list[float] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per round: samples, wall time, error


def ampbench_command(binary: Path, name: str, mode: str, preset: str, settings: RunSettings, out: Path) -> list[str]:
    # --steps = --min-steps makes every cell run exactly `steps` timed steps: the noise target is
    # only consulted from min-steps on, and the time cap (which otherwise wins over min-steps, so
    # slow AMP cells would stop early) is set out of reach.
    return [str(binary), "run", "--workloads", name, "--modes", mode, "--device", "cpu", "--preset", preset,
            "--steps", str(settings.steps), "--min-steps", str(settings.steps), "--warmup", str(settings.warmup),
            "--time-cap", "1e9", "--threads", str(settings.threads), "--seed", str(settings.seed),
            "--out", str(out)]


def run_ampbench_cell(binary: Path, name: str, mode: str, preset: str, settings: RunSettings) -> dict[str, Any]:
    """Runs the cell through the real binary; returns its report.json cell (raises on failure)."""
    with tempfile.TemporaryDirectory(prefix="side_by_side_") as out:
        command = ampbench_command(binary, name, mode, preset, settings, Path(out))
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        report_path = Path(out) / "report.json"
        if not report_path.exists():
            last_line = (completed.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise RuntimeError(f"ampbench exited {completed.returncode}: {last_line}")
        report = json.loads(report_path.read_text())
    cell = report["cells"][0]
    if cell["status"] != "ok":
        raise RuntimeError(f"ampbench cell failed: {cell['error']}")
    if len(cell["step_times_s"]) != settings.steps or cell["warmup_steps"] != settings.warmup:
        raise RuntimeError(f"ampbench ran {cell['warmup_steps']} warm-up + {len(cell['step_times_s'])} timed steps, "
                           f"asked for {settings.warmup} + {settings.steps}")
    if report["environment"]["threads"] != settings.threads:
        raise RuntimeError(f"ampbench ran on {report['environment']['threads']} threads, asked for {settings.threads}")
    return cell


def check_same_shapes(name: str, preset: str, cell: dict[str, Any]) -> dict[str, Any]:
    """FLOPs and samples per step follow from every size but the head count: they must agree."""
    _, recipe = workload_recipe(name, preset)
    throughput = cell["throughput"]
    if (not math.isclose(throughput["flops_per_step"], recipe["flops_per_step"], rel_tol=1e-9)
            or throughput["samples_per_step"] != recipe["samples_per_step"]):
        raise RuntimeError(f"{name}/{preset}: ampbench reports {throughput['flops_per_step']} FLOPs and "
                           f"{throughput['samples_per_step']} samples per step, the Python replica "
                           f"{recipe['flops_per_step']} and {recipe['samples_per_step']}")
    return {"flops_per_step": recipe["flops_per_step"], "samples_per_step": recipe["samples_per_step"],
            "agrees_with_ampbench_report": True}


# ---------------------------------------------------------------------------------------------
# Orchestration


@dataclass
class Cell:
    workload: str
    mode: str
    preset: str
    ampbench: SideResult = field(default_factory=SideResult)
    pytorch: SideResult = field(default_factory=SideResult)
    parameters: dict[str, int] = field(default_factory=dict)  # the replica's count and the C++ shapes' count
    shape_check: dict[str, Any] = field(default_factory=dict)  # FLOPs and samples per step, both sides


def run_side(side: SideResult, round_number: int, label: str, run: Callable[[], list[float]]) -> None:
    start = time.perf_counter()
    try:
        samples = run()
        side.step_times_s.extend(samples)
        side.rounds.append({"round": round_number, "step_times_s": samples, "wall_s": time.perf_counter() - start})
    except Exception as error:  # a failed side is recorded; the other cells go on
        message = (str(error).splitlines() or [type(error).__name__])[0]
        side.rounds.append({"round": round_number, "error": message})
        print(f"  {label} failed in round {round_number}: {message}", file=sys.stderr)


def run_round(cell: Cell, round_number: int, binary: Path, settings: RunSettings) -> None:
    """ampbench then PyTorch in odd rounds (1, 3, ...), PyTorch then ampbench in even ones."""
    def python_side() -> list[float]:
        samples, workload = run_python_cell(cell.workload, cell.mode, cell.preset, settings)
        cell.parameters = {"python_replica": sum(parameter.numel() for parameter in workload.student.parameters()),
                           "cpp_definition": workload.expected_parameters}
        return samples

    def ampbench_side() -> list[float]:
        report_cell = run_ampbench_cell(binary, cell.workload, cell.mode, cell.preset, settings)
        cell.shape_check = check_same_shapes(cell.workload, cell.preset, report_cell)
        return [float(value) for value in report_cell["step_times_s"]]

    sides = [(cell.ampbench, "ampbench", ampbench_side), (cell.pytorch, "PyTorch", python_side)]
    for side, label, run in sides if round_number % 2 == 1 else reversed(sides):
        run_side(side, round_number, label, run)


def run_all(cells: list[Cell], rounds: int, binary: Path, settings: RunSettings) -> None:
    for round_number in range(1, rounds + 1):
        for number, cell in enumerate(cells, start=1):
            print(f"round {round_number}/{rounds}, cell {number}/{len(cells)}: "
                  f"{cell.workload}/{cell.mode} ({cell.preset})", file=sys.stderr, flush=True)
            run_round(cell, round_number, binary, settings)


# ---------------------------------------------------------------------------------------------
# Figures, table, JSON


@dataclass
class CellFigures:
    ampbench_median: float
    pytorch_median: float
    ratio: Interval
    ratio_target: float | None
    speedup_ampbench: Interval | None
    speedup_pytorch: Interval | None

    @property
    def ratio_pass(self) -> bool | None:
        if self.ratio_target is None:
            return None
        return math.isfinite(self.ratio.value) and self.ratio.value <= self.ratio_target

    @property
    def speedups_overlap(self) -> bool | None:
        if self.speedup_ampbench is None or self.speedup_pytorch is None:
            return None
        return intervals_overlap(self.speedup_ampbench, self.speedup_pytorch)


def median_or_nan(samples: Sequence[float]) -> float:
    return float(np.median(samples)) if len(samples) > 0 else math.nan


def figures_for(cell: Cell, fp32: Cell | None, resamples: int, seed: int) -> CellFigures:
    ampbench, pytorch = cell.ampbench.step_times_s, cell.pytorch.step_times_s
    speedups: tuple[Interval | None, Interval | None] = (None, None)
    if fp32 is not None and cell.mode != "fp32":
        speedups = (bootstrap_median_ratio(fp32.ampbench.step_times_s, ampbench, resamples=resamples, seed=seed),
                    bootstrap_median_ratio(fp32.pytorch.step_times_s, pytorch, resamples=resamples, seed=seed))
    return CellFigures(ampbench_median=median_or_nan(ampbench), pytorch_median=median_or_nan(pytorch),
                       ratio=bootstrap_median_ratio(ampbench, pytorch, resamples=resamples, seed=seed),
                       ratio_target=RATIO_TARGETS.get((cell.workload, cell.preset)),
                       speedup_ampbench=speedups[0], speedup_pytorch=speedups[1])


def format_time(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "-"
    return f"{seconds * 1e3:.3f} ms" if seconds < 1.0 else f"{seconds:.3f} s"


def format_interval(interval: Interval | None, digits: int = 3) -> str:
    if interval is None or not math.isfinite(interval.value):
        return "-"
    return f"{interval.value:.{digits}f} [{interval.low:.{digits}f}, {interval.high:.{digits}f}]"


def table_row(cell: Cell, figures: CellFigures) -> list[str]:
    overlap, ratio_pass = figures.speedups_overlap, figures.ratio_pass
    parameters = cell.parameters
    return [cell.workload, cell.mode, cell.preset,
            f"{parameters['python_replica']} = {parameters['cpp_definition']}" if parameters else "-",
            format_time(figures.ampbench_median), format_time(figures.pytorch_median), format_interval(figures.ratio),
            "-" if ratio_pass is None else f"{'PASS' if ratio_pass else 'MISS'} (<= {figures.ratio_target:g})",
            format_interval(figures.speedup_ampbench, 2), format_interval(figures.speedup_pytorch, 2),
            "-" if overlap is None else ("PASS (overlap)" if overlap else "MISS (apart)")]


def print_table(rows: list[list[str]]) -> None:
    header = ["workload", "mode", "preset", "params Py = C++", "ampbench median", "PyTorch median", "ratio amp/PyTorch [95% CI]",
              "ratio target", "speedup ampbench", "speedup PyTorch", "speedups agree"]
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip())


def environment() -> dict[str, Any]:
    return {"torch_version": torch.__version__, "numpy_version": np.__version__,
            "python_version": platform.python_version(), "threads": torch.get_num_threads(),
            "cpu_model": cpu_model(), "aten_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "hostname": platform.node(), "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def side_json(side: SideResult) -> dict[str, Any]:
    return {"median_s": finite_or_none(median_or_nan(side.step_times_s)), "step_times_s": side.step_times_s,
            "rounds": side.rounds}


def cell_json(cell: Cell, figures: CellFigures) -> dict[str, Any]:
    speedups = {"ampbench": figures.speedup_ampbench.as_json() if figures.speedup_ampbench else None,
                "pytorch": figures.speedup_pytorch.as_json() if figures.speedup_pytorch else None,
                "overlap": figures.speedups_overlap}
    return {"workload": cell.workload, "mode": cell.mode, "preset": cell.preset, "parameters": cell.parameters,
            "shape_check": cell.shape_check,
            "ampbench": side_json(cell.ampbench), "pytorch": side_json(cell.pytorch),
            "ratio_ampbench_over_pytorch": figures.ratio.as_json(),
            "ratio_target": figures.ratio_target, "ratio_pass": figures.ratio_pass,
            "speedup_vs_fp32": speedups}


def write_json_atomically(path: Path, document: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(document, indent=1, allow_nan=False) + "\n")
    os.replace(temporary, path)


# ---------------------------------------------------------------------------------------------
# Command line


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse, but a bad flag gets one line on stderr (exit 2), as ampbench's CLI does."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def comma_list(known: Sequence[str]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in names if name not in known]
        if not names or unknown:
            raise argparse.ArgumentTypeError(f"unknown {unknown or text!r}; known: {','.join(known)}")
        return list(dict.fromkeys(names))
    return parse


def presets_flag(text: str) -> dict[str, str]:
    presets: dict[str, str] = {}
    for item in text.split(","):
        name, _, preset = item.partition("=")
        if name.strip() not in WORKLOADS or preset.strip() not in PRESETS:
            raise argparse.ArgumentTypeError(f"expected WORKLOAD=PRESET items, got {item!r} "
                                             f"(workloads: {','.join(WORKLOADS)}; presets: {','.join(PRESETS)})")
        presets[name.strip()] = preset.strip()
    return presets


def bounded_int(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    return parse


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = OneLineErrorParser(
        prog="side_by_side.py",
        description="ampbench's C++ harness vs the PyTorch tutorials' Python loop, same workloads, "
                    f"interleaved rounds, on the CPU. Default run time: {EXPECTED_RUN_TIME}. "
                    "Prints per cell the two medians, ratio ampbench/PyTorch with a bootstrap 95% CI, "
                    "both speedups vs fp32, and PASS/MISS against issue #9's targets.")
    parser.add_argument("--workloads", type=comma_list(WORKLOADS), default=",".join(WORKLOADS),
                        help="comma-separated (default: %(default)s)")
    parser.add_argument("--modes", type=comma_list(MODES), default=",".join(MODES),
                        help="comma-separated; speedups need fp32 (default: %(default)s)")
    parser.add_argument("--presets", type=presets_flag, default={},
                        help="WORKLOAD=PRESET,... overriding the defaults "
                             + ",".join(f"{name}={preset}" for name, preset in DEFAULT_PRESETS.items()))
    parser.add_argument("--rounds", type=bounded_int(1), default=3, help="interleaved rounds (default: %(default)s)")
    parser.add_argument("--steps", type=bounded_int(2), default=30,
                        help="timed steps per cell, side and round (default: %(default)s)")
    parser.add_argument("--warmup", type=bounded_int(0), default=3,
                        help="untimed steps per cell, side and round (default: %(default)s)")
    parser.add_argument("--threads", type=bounded_int(1), default=os.cpu_count() or 1,
                        help="intra-op threads on both sides (default: the CPU count, %(default)s)")
    parser.add_argument("--seed", type=bounded_int(0), default=0, help="weights and data seed (default: 0)")
    parser.add_argument("--resamples", type=bounded_int(100), default=2000,
                        help="bootstrap resamples (default: %(default)s)")
    parser.add_argument("--ampbench", type=Path, default=DEFAULT_BINARY, help="the ampbench binary (default: %(default)s)")
    parser.add_argument("--json", type=Path, default=Path("side_by_side.json"),
                        help="where to write every sample and figure (default: %(default)s)")
    return parser.parse_args(argv)


def fail(message: str) -> NoReturn:
    print(f"side_by_side.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv: Sequence[str]) -> int:
    arguments = parse_arguments(argv)
    if not arguments.ampbench.is_file() or not os.access(arguments.ampbench, os.X_OK):
        fail(f"no ampbench binary at {arguments.ampbench}; build it with scripts/build (or pass --ampbench PATH)")
    if not arguments.json.resolve().parent.is_dir():
        fail(f"--json: folder {arguments.json.resolve().parent} does not exist")
    presets = {**DEFAULT_PRESETS, **arguments.presets}
    settings = RunSettings(arguments.warmup, arguments.steps, arguments.threads, arguments.seed)
    torch.set_num_threads(settings.threads)
    cells = [Cell(name, mode, presets[name]) for name in arguments.workloads for mode in arguments.modes]
    started = time.perf_counter()
    run_all(cells, arguments.rounds, arguments.ampbench, settings)

    fp32_cells = {cell.workload: cell for cell in cells if cell.mode == "fp32"}
    figures = [figures_for(cell, fp32_cells.get(cell.workload), arguments.resamples, arguments.seed) for cell in cells]
    print_table([table_row(cell, cell_figures) for cell, cell_figures in zip(cells, figures)])
    elapsed = time.perf_counter() - started
    print(f"{arguments.rounds} rounds x {settings.warmup} warm-up + {settings.steps} timed steps per side and cell, "
          f"{settings.threads} threads; took {elapsed:.0f} s", file=sys.stderr)
    document = {"schema": "ampbench.side_by_side/1", "environment": environment(),
                "settings": {"rounds": arguments.rounds, "warmup": settings.warmup, "steps": settings.steps,
                             "threads": settings.threads, "seed": settings.seed, "resamples": arguments.resamples,
                             "batch_pool": BATCH_POOL, "ampbench": str(arguments.ampbench), "elapsed_s": elapsed},
                "cells": [cell_json(cell, cell_figures) for cell, cell_figures in zip(cells, figures)]}
    write_json_atomically(arguments.json, document)
    print(f"results: {arguments.json}", file=sys.stderr)
    failures = sum("error" in entry for cell in cells for side in (cell.ampbench, cell.pytorch) for entry in side.rounds)
    if failures:
        print(f"{failures} side-rounds failed (errors in the JSON); their cells pool fewer samples", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
