"""Python replicas of ampbench's workloads, trained in the AMP tutorials' loop: `torch.autocast`
around forward and loss, `torch.amp.GradScaler` for float16, `loss.item()` every step. The sizes
are the C++ presets' (workloads/src/*.cpp), the parameter counts checked against them."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

WORKLOADS = ("simplenet", "simplecnn", "transformer")
MODES = ("fp32", "fp16", "bf16")
PRESETS = ("seed", "default", "large", "gpu")
AUTOCAST_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
BATCH_POOL = 16  # as kBatchPool in harness/src/measure/mode_session.h


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
                   "large": SimpleNetSize(1024, (4096, 4096), 1, 4096),
                   "gpu": SimpleNetSize(8192, (8192, 8192, 8192), 1, 8192)}
SIMPLECNN_SIZES = {"seed": SimpleCnnSize(32, 64, 32, 10, 64), "default": SimpleCnnSize(32, 64, 32, 10, 32),
                   "large": SimpleCnnSize(64, 128, 64, 10, 256), "gpu": SimpleCnnSize(128, 256, 128, 10, 256)}
TRANSFORMER_SIZES = {"seed": TransformerSize(256, 4, 1024, 128, 8), "default": TransformerSize(128, 4, 512, 64, 4),
                     "large": TransformerSize(1024, 16, 4096, 512, 16),
                     "gpu": TransformerSize(4096, 32, 16384, 2048, 8)}


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


@dataclass(frozen=True)
class RunSettings:
    warmup: int
    steps: int
    threads: int
    seed: int


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
