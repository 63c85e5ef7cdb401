"""torch.amp.GradScaler's step overhead on CPU, on the model of bench/microbenchmarks/grad_scaler_benchmark.cpp.

Same setup as the C++ benchmark: L Linear(W, W) layers, gradients filled once, SGD with
momentum (foreach=False, as on CPU by default; or fused=True, the scale-aware path that
ampbench's FusedSGD mirrors), scale 1, one thread. Prints, per optimizer and (L, W), the
median time per call of optimizer.step() and of scaler.step(optimizer) + scaler.update(),
in microseconds, as wall time and as thread CPU time (comparable with Google Benchmark's
"Time" and "CPU" columns; on a loaded machine the CPU time is the steadier of the two).

Usage: grad_scaler_python_reference.py [--repeats 15] [--min-time 0.2]
"""

import argparse
import statistics
import time

import torch

# As parameter_counts() in the C++ benchmark: ~1e3 to ~1e8 parameters.
SHAPES = [(1, 31), (4, 64), (64, 64), (4, 512), (4, 2048), (6, 4096)]


def median_us(call, min_time, repeats):
    """(wall, cpu): medians over `repeats` batches of the mean time per call, each batch
    >= min_time s of wall time."""
    iterations = 1
    while True:  # calibrate a batch size, as Google Benchmark does
        start = time.perf_counter()
        for _ in range(iterations):
            call()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            break
        iterations *= 2
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.thread_time()
        for _ in range(iterations):
            call()
        cpu.append((time.thread_time() - start_cpu) / iterations * 1e6)
        wall.append((time.perf_counter() - start) / iterations * 1e6)
    return statistics.median(wall), statistics.median(cpu)


def fixture(layers, width, fused):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(layers)])
    for param in model.parameters():
        param.grad = torch.randn_like(param) * 1e-3
    implementation = {"fused": True} if fused else {"foreach": False}
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-9, momentum=0.9, **implementation)
    return model, optimizer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--min-time", type=float, default=0.2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread; median us per call")
    print(f"{'fused':>5} {'layers/width':>14} {'params':>10} {'clock':>5} {'optimizer.step':>15} "
          f"{'scaler step+update':>19} {'overhead':>9}")
    for fused, (layers, width) in ((f, shape) for f in (False, True) for shape in SHAPES):
        model, optimizer = fixture(layers, width, fused)
        params = sum(p.numel() for p in model.parameters())
        plain = median_us(optimizer.step, args.min_time, args.repeats)

        model, optimizer = fixture(layers, width, fused)
        scaler = torch.amp.GradScaler("cpu", init_scale=1.0, growth_interval=1 << 40)
        scaler.scale(torch.ones(()))  # initialises the scale, as the loss would

        def scaled_step():
            scaler.step(optimizer)
            scaler.update()

        scaled = median_us(scaled_step, args.min_time, args.repeats)
        for clock, p, s in (("wall", plain[0], scaled[0]), ("cpu", plain[1], scaled[1])):
            print(f"{int(fused):>5} {layers:>6}/{width:<7} {params:>10} {clock:>5} {p:>15.1f} {s:>19.1f} "
                  f"{s - p:>9.1f}")


if __name__ == "__main__":
    main()
