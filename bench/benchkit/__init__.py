"""What ampbench's Python benchmarks share: where the CLI is, how a suite is run and read, the
machine-state rule over probe times, the PyTorch loop they measure against, and its statistics."""
