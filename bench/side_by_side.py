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
import torch.nn.functional as F
from torch import nn

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BINARY = REPO_ROOT / "build" / "default" / "bench" / "ampbench"
WORKLOADS = ("simplenet", "simplecnn", "transformer")
MODES = ("fp32", "fp16", "bf16")
PRESETS = ("seed", "default", "large")
DEFAULT_PRESETS = {"simplenet": "seed", "simplecnn": "seed", "transformer": "default"}
AUTOCAST_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
BATCH_POOL = 16  # as kBatchPool in harness/src/measure/mode_session.cpp
# Issue #9's targets for ampbench/PyTorch; SimpleNet's holds at the tutorial's (`seed`) sizes only.
RATIO_TARGETS = {("simplenet", "seed"): 0.5, **{(name, preset): 1.02 for name in ("simplecnn", "transformer")
                                                for preset in PRESETS}}
# Estimated from the step times on a 2-core AVX2 CPU (docs/performance.md) plus ~2.5 s of process
# start per ampbench cell and round; a machine busy compiling takes several times longer.
EXPECTED_RUN_TIME = "about 5 minutes on a quiet 2-core AVX2 CPU, mostly SimpleCNN's AMP cells"


# ---------------------------------------------------------------------------------------------
# Statistics (pure; tested by tests/bench/side_by_side_stats_test.py)


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95% confidence interval."""

    value: float
    low: float
    high: float

    def as_json(self) -> dict[str, float | None]:
        return {"value": finite_or_none(self.value), "ci_low": finite_or_none(self.low),
                "ci_high": finite_or_none(self.high)}


def finite_or_none(value: float) -> float | None:
    """Strict JSON has no NaN or Infinity: such a value is written as null."""
    return value if math.isfinite(value) else None


def bootstrap_median_ratio(numerator: Sequence[float], denominator: Sequence[float], *,
                           resamples: int = 2000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """median(numerator) / median(denominator) with a percentile-bootstrap CI."""
    return bootstrap_ratio_of_medians([numerator], [denominator], resamples=resamples, seed=seed,
                                      confidence=confidence)


def bootstrap_ratio_of_medians(numerators: Sequence[Sequence[float]], denominators: Sequence[Sequence[float]], *,
                               resamples: int = 2000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """The product of the numerators' medians over the product of the denominators', with a
    percentile-bootstrap CI (a ratio of two speedups is four medians).

    Each sample is resampled with replacement within itself (the samples are independent),
    `resamples` times, from a generator with a fixed seed so the CI is reproducible.
    """
    if any(len(sample) == 0 for sample in (*numerators, *denominators)):
        return Interval(math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)

    def medians(sample: Sequence[float]) -> tuple[float, np.ndarray]:
        values = np.asarray(sample, dtype=float)
        return float(np.median(values)), np.median(values[rng.integers(0, values.size, size=(resamples, values.size))],
                                                   axis=1)

    return ratio_with_interval([medians(s) for s in numerators], [medians(s) for s in denominators], confidence)


def ratio_with_interval(numerators: Sequence[tuple[float, np.ndarray]], denominators: Sequence[tuple[float, np.ndarray]],
                        confidence: float = 0.95) -> Interval:
    """The product of the numerators' medians over the denominators', each given as (median, its
    bootstrap resamples, all of one length), with the percentile interval of the resampled ratios."""
    value, ratios = 1.0, 1.0
    for median, resampled in numerators:
        value, ratios = value * median, ratios * resampled
    for median, resampled in denominators:
        value, ratios = value / median, ratios / resampled
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(ratios, [tail, 100.0 - tail])
    return Interval(value, float(low), float(high))


def intervals_overlap(first: Interval, second: Interval) -> bool:
    """True when the two confidence intervals share at least one point."""
    return first.low <= second.high and second.low <= first.high


# ---------------------------------------------------------------------------------------------
# Python replicas of the workloads (sizes from workloads/src/*.cpp)


@dataclass(frozen=True)
class SimpleNetSize:
    inputs: int
    hidden: tuple[int, ...]
    outputs: int
    batch: int


@dataclass(frozen=True)
class SimpleCnnSize:
    channels1: int
    channels2: int
    image: int
    classes: int
    batch: int

    @property
    def fc_inputs(self) -> int:
        return self.channels2 * (self.image // 4) * (self.image // 4)


@dataclass(frozen=True)
class TransformerSize:
    d_model: int
    heads: int
    ffn: int
    sequence: int
    batch: int


SIMPLENET_SIZES = {"seed": SimpleNetSize(10, (), 1, 100), "default": SimpleNetSize(32, (128, 128), 1, 128),
                   "large": SimpleNetSize(1024, (4096, 4096), 1, 4096)}
SIMPLECNN_SIZES = {"seed": SimpleCnnSize(32, 64, 32, 10, 64), "default": SimpleCnnSize(32, 64, 32, 10, 32),
                   "large": SimpleCnnSize(64, 128, 64, 10, 256)}
TRANSFORMER_SIZES = {"seed": TransformerSize(256, 4, 1024, 128, 8), "default": TransformerSize(128, 4, 512, 64, 4),
                     "large": TransformerSize(1024, 16, 4096, 512, 16)}


class SimpleCnnNet(nn.Module):
    """conv k3 p1 -> ReLU -> 2x2 max-pool, twice, then fc; as SimpleCnnNetImpl."""

    def __init__(self, size: SimpleCnnSize) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, size.channels1, 3, padding=1)
        self.conv2 = nn.Conv2d(size.channels1, size.channels2, 3, padding=1)
        self.fc = nn.Linear(size.fc_inputs, size.classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


class TransformerBlockNet(nn.Module):
    """Pre-norm block: LN -> QKV -> SDPA -> out -> residual; LN -> fc1 -> GELU -> fc2 -> residual."""

    def __init__(self, size: TransformerSize) -> None:
        super().__init__()
        self.heads = size.heads
        self.norm1 = nn.LayerNorm(size.d_model)
        self.qkv = nn.Linear(size.d_model, 3 * size.d_model)
        self.out = nn.Linear(size.d_model, size.d_model)
        self.norm2 = nn.LayerNorm(size.d_model)
        self.fc1 = nn.Linear(size.d_model, size.ffn)
        self.fc2 = nn.Linear(size.ffn, size.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, sequence, d_model = x.shape
        projected = self.qkv(self.norm1(x)).view(batch, sequence, 3, self.heads, d_model // self.heads)
        projected = projected.permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(projected[0], projected[1], projected[2])
        x = x + self.out(attended.transpose(1, 2).reshape(batch, sequence, d_model))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


def make_mlp(size: SimpleNetSize) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = size.inputs
    for hidden in size.hidden:
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    layers.append(nn.Linear(width, size.outputs))
    return nn.Sequential(*layers)


@dataclass
class PythonWorkload:
    """What a step needs: the student, the loss, the optimizer, and how to make a batch."""

    name: str
    student: nn.Module
    teacher: nn.Module
    input_shape: tuple[int, ...]
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    make_optimizer: Callable[[nn.Module], torch.optim.Optimizer]
    expected_parameters: int  # counted from the C++ definition's shapes, independently of `student`
    flops_per_step: float  # the C++ workload's formula, compared with ampbench's report
    samples_per_step: int

    def make_batch(self, index: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
        generator = torch.Generator().manual_seed(seed * 1_000_003 + index)
        inputs = torch.randn(self.input_shape, generator=generator)
        with torch.no_grad():
            outputs = self.teacher(inputs)
        targets = outputs.argmax(1) if self.name == "simplecnn" else outputs
        return inputs, targets


def linear_parameters(inputs: int, outputs: int) -> int:
    return inputs * outputs + outputs


def simplenet_workload(size: SimpleNetSize) -> tuple[Callable[[], nn.Module], dict[str, Any]]:
    widths = [size.inputs, *size.hidden, size.outputs]
    forward = sum(2.0 * size.batch * a * b for a, b in zip(widths, widths[1:]))
    return lambda: make_mlp(size), {
        "input_shape": (size.batch, size.inputs),
        "loss": F.mse_loss,
        "make_optimizer": lambda model: torch.optim.SGD(model.parameters(), lr=0.01),
        "expected_parameters": sum(linear_parameters(a, b) for a, b in zip(widths, widths[1:])),
        "flops_per_step": 3.0 * forward,
        "samples_per_step": size.batch,
    }


def simplecnn_workload(size: SimpleCnnSize) -> tuple[Callable[[], nn.Module], dict[str, Any]]:
    pixels = float(size.image * size.image)
    conv1 = 2.0 * size.batch * size.channels1 * pixels * 3 * 9
    conv2 = 2.0 * size.batch * size.channels2 * (pixels / 4) * size.channels1 * 9
    fc = 2.0 * size.batch * size.fc_inputs * size.classes
    parameters = (size.channels1 * 3 * 9 + size.channels1 + size.channels2 * size.channels1 * 9 + size.channels2
                  + linear_parameters(size.fc_inputs, size.classes))
    return lambda: SimpleCnnNet(size), {
        "input_shape": (size.batch, 3, size.image, size.image),
        "loss": F.cross_entropy,
        "make_optimizer": lambda model: torch.optim.Adam(model.parameters(), lr=1e-3),
        "expected_parameters": parameters,
        "flops_per_step": 3.0 * (conv1 + conv2 + fc),
        "samples_per_step": size.batch,
    }


def transformer_workload(size: TransformerSize) -> tuple[Callable[[], nn.Module], dict[str, Any]]:
    d, tokens = size.d_model, size.batch * size.sequence
    projections = 2.0 * tokens * d * (3 * d) + 2.0 * tokens * d * d
    attention = 2.0 * 2.0 * size.batch * size.sequence * size.sequence * d
    mlp = 2.0 * 2.0 * tokens * d * size.ffn
    parameters = (2 * 2 * d + linear_parameters(d, 3 * d) + linear_parameters(d, d)
                  + linear_parameters(d, size.ffn) + linear_parameters(size.ffn, d))
    return lambda: TransformerBlockNet(size), {
        "input_shape": (size.batch, size.sequence, d),
        "loss": F.mse_loss,
        # AdamW's defaults (weight decay 1e-2, betas, eps) are the same in Python and C++.
        "make_optimizer": lambda model: torch.optim.AdamW(model.parameters(), lr=1e-3),
        "expected_parameters": parameters,
        "flops_per_step": 3.0 * (projections + attention + mlp),
        "samples_per_step": size.batch,
    }


def workload_recipe(name: str, preset: str) -> tuple[Callable[[], nn.Module], dict[str, Any]]:
    """How to build the model, and the rest of the workload's definition, at `preset`."""
    if name == "simplenet":
        return simplenet_workload(SIMPLENET_SIZES[preset])
    if name == "simplecnn":
        return simplecnn_workload(SIMPLECNN_SIZES[preset])
    return transformer_workload(TRANSFORMER_SIZES[preset])


def build_workload(name: str, preset: str, seed: int) -> PythonWorkload:
    """The Python replica of `name` at `preset`, with student and teacher seeded apart."""
    build, recipe = workload_recipe(name, preset)
    torch.manual_seed(2 * seed + 1)
    student = build()
    torch.manual_seed(2 * seed + 2)
    teacher = build().eval().requires_grad_(False)
    workload = PythonWorkload(name=name, student=student, teacher=teacher, **recipe)
    counted = sum(parameter.numel() for parameter in student.parameters())
    if counted != workload.expected_parameters:
        raise RuntimeError(f"{name}/{preset}: the Python replica has {counted} parameters, "
                           f"the C++ definition {workload.expected_parameters}")
    return workload


# ---------------------------------------------------------------------------------------------
# The two sides


@dataclass(frozen=True)
class RunSettings:
    warmup: int
    steps: int
    threads: int
    seed: int


@dataclass
class SideResult:
    step_times_s: list[float] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per round: samples, wall time, error


def python_step(workload: PythonWorkload, optimizer: torch.optim.Optimizer,
                scaler: torch.amp.GradScaler | None, autocast_dtype: torch.dtype | None,
                batch: tuple[torch.Tensor, torch.Tensor]) -> float:
    """One step of the tutorials' loop; returns the loss read with .item(), as they do (on a GPU
    that read waits for the step, so a step's time is its time to completion)."""
    inputs, targets = batch
    optimizer.zero_grad()
    scope = (torch.autocast(device_type=inputs.device.type, dtype=autocast_dtype) if autocast_dtype is not None
             else contextlib.nullcontext())
    with scope:
        loss = workload.loss(workload.student(inputs), targets)
    if scaler is None:
        loss.backward()
        optimizer.step()
    else:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    return loss.item()


def run_python_cell(name: str, mode: str, preset: str, settings: RunSettings,
                    between_rounds: Callable[[], None] | None = None,
                    round_steps: int = 1, device: str = "cpu") -> tuple[list[float], PythonWorkload]:
    """Trains a fresh replica for warm-up + timed steps; returns the timed steps' seconds.
    between_rounds, if given, runs before every round of round_steps timed steps, outside their
    timing, and is followed by one untimed step: the one that meets what it left in the caches and
    the thread pool, as the first step of each of ampbench's blocks is not timed either. On a
    `device` other than the CPU the models and the batches move there (made on the CPU, as the
    same seeds give the same batches everywhere), and float32 matmuls stay in float32 (no TF32)."""
    torch.set_num_threads(settings.threads)
    workload = build_workload(name, preset, settings.seed)
    batches = [tuple(tensor.to(device) for tensor in workload.make_batch(index, settings.seed))
               for index in range(BATCH_POOL)]
    workload.student.to(device)
    if device != "cpu":
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    optimizer = workload.make_optimizer(workload.student)
    scaler = torch.amp.GradScaler(torch.device(device).type) if mode == "fp16" else None
    autocast_dtype = AUTOCAST_DTYPES.get(mode)
    for index in range(settings.warmup):
        python_step(workload, optimizer, scaler, autocast_dtype, batches[index % BATCH_POOL])
    step_times: list[float] = []
    for index in range(settings.warmup, settings.warmup + settings.steps):
        if between_rounds is not None and (index - settings.warmup) % round_steps == 0:
            between_rounds()
            python_step(workload, optimizer, scaler, autocast_dtype, batches[index % BATCH_POOL])
        start = time.perf_counter()
        python_step(workload, optimizer, scaler, autocast_dtype, batches[index % BATCH_POOL])
        step_times.append(time.perf_counter() - start)
    return step_times, workload


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
