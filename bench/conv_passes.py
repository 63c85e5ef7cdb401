"""Each pass of SimpleCNN's convolutions per dtype, and the oneDNN kernel that runs it.

Why: `ampbench explain` names the op that takes most of an AMP step (`dominant-op`); on a 2-core
Xeon with avx512_fp16 that was float16's `aten::convolution_backward`, 220x FP32's. This splits it
into the forward, the input gradient and the weight gradient of each of SimpleCNN's two
convolutions (the default preset's shapes, batch 32, padding 1), times each pass alone in float32,
bfloat16 and float16 (median of repeated calls after one untimed call), and names the oneDNN
kernel of each from a second process run with ONEDNN_VERBOSE=1 (oneDNN prints one line per
primitive it executes; `ref:any` is its reference implementation, used where it has no optimized
kernel for the dtype on this CPU).

Usage: .venv/bin/python bench/conv_passes.py [--threads 2] [--budget-s 1]
Prints a Markdown table (docs/performance.md, "Float16 convolutions on the Xeon").
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import torch

# SimpleCNN's default preset (workloads/src/simple_cnn.cpp, preset.cpp): conv 3->32 at 32x32, then
# 32->64 at 16x16 after a 2x2 max pool; 3x3 kernels.
CONVOLUTIONS = [("3->32 at 32x32", (32, 3, 32, 32), (32, 3, 3, 3)), ("32->64 at 16x16", (32, 32, 16, 16), (64, 32, 3, 3))]
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
PASSES = {"forward": [False, False, False], "grad input": [True, False, False], "grad weight": [False, True, False]}


def pass_call(dtype, input_shape, weight_shape, name):
    x = torch.randn(input_shape, dtype=dtype)
    w = torch.randn(weight_shape, dtype=dtype)
    grad = torch.randn(input_shape[0], weight_shape[0], input_shape[2], input_shape[3], dtype=dtype)
    if name == "forward":
        return lambda: torch.nn.functional.conv2d(x, w, padding=1)
    mask = PASSES[name]
    return lambda: torch.ops.aten.convolution_backward(grad, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask)


def timed(call, budget_s):
    call()  # the primitive's creation and the first touch of its buffers
    times = []
    start = time.perf_counter()
    while not times or (time.perf_counter() - start < budget_s and len(times) < 50):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def kernels_by_pass(verbose_stdout):
    """Each pass's oneDNN kernel from the --print-kernels process's stdout: the implementation field
    of the first convolution executed after the pass's marker line. A pass with none ran outside
    oneDNN (ATen's own kernel: on a CPU without avx512_fp16 LibTorch does not send float16 there)."""
    kernels, current = {}, None
    for line in verbose_stdout.splitlines():
        if line.startswith("PASS "):
            current = line[len("PASS "):]
        elif current and current not in kernels and ",exec,cpu,convolution," in line:
            kernels[current] = line.split(",")[6]
    return kernels


def kernels_of_each_pass():
    """Each pass once in a process with ONEDNN_VERBOSE=1 (oneDNN prints to stdout)."""
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    out = subprocess.run([sys.executable, __file__, "--print-kernels"], env=env, capture_output=True, text=True,
                         check=True).stdout
    return kernels_by_pass(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--budget-s", type=float, default=1.0, help="seconds of calls per pass at most")
    parser.add_argument("--print-kernels", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.print_kernels:
        for label, input_shape, weight_shape in CONVOLUTIONS:
            for dtype_name, dtype in DTYPES.items():
                for name in PASSES:
                    print(f"PASS {label}|{dtype_name}|{name}", flush=True)
                    pass_call(dtype, input_shape, weight_shape, name)()
                    sys.stdout.flush()
        return
    kernels = kernels_of_each_pass()
    print(f"torch {torch.__version__}, {args.threads} threads, median per call")
    print("| convolution | dtype | " + " | ".join(PASSES) + " | kernels (" + ", ".join(PASSES) + ") |")
    print("|---|---|" + "---|" * (len(PASSES) + 1))
    for label, input_shape, weight_shape in CONVOLUTIONS:
        for dtype_name, dtype in DTYPES.items():
            cells = [f"{timed(pass_call(dtype, input_shape, weight_shape, name), args.budget_s) * 1e3:.2f} ms"
                     for name in PASSES]
            names = [f"`{kernels[key]}`" if key in kernels else "not oneDNN"
                     for key in (f"{label}|{dtype_name}|{name}" for name in PASSES)]
            print(f"| {label} | {dtype_name} | " + " | ".join(cells) + " | " + ", ".join(names) + " |")


if __name__ == "__main__":
    main()
