"""Where the benchmarks find the repository and the CLI that `scripts/build` leaves."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BINARY = ROOT / "build" / "default" / "cli" / "ampbench"
