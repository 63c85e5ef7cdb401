#!/usr/bin/env python3
"""The ampbench that bisect_step_test's step measures with: the real binary, then the run's
machine-probe times scaled by one factor so that the probe's level in the run (its raw step time
over its step time per probe, as `history` derives both) is the history's. The history is one
run's report slowed or sped up 100x; the step's own run comes a minute later, and on a loaded host
(in CI) its probe level was 1.43x the history's: "another state of the host", rightly
inconclusive (exit 125), so the test would measure the host instead of the script. One factor for
every round keeps which rounds the slow-machine rule leaves out, so every figure derived from them
stays what the run measured.
Usage: as ampbench, with STEADY_HOST_AMPBENCH (the real one), STEADY_HOST_CELL and
STEADY_HOST_LEVEL (probe_level of the history's report) in the environment."""
import json
import os
import subprocess
import sys
import tempfile


def probe_level(ampbench, report_path, cell):
    """The cell's raw step time over its step time per probe, as `history add` derives them."""
    with tempfile.TemporaryDirectory() as scratch:
        db = os.path.join(scratch, "level.sqlite")
        subprocess.run([ampbench, "history", "add", "--db", db, "--testbed", "level", report_path], check=True,
                       capture_output=True)
        shown = subprocess.run([ampbench, "history", "show", "--db", db, "--figure", "step_time_s",
                                "step_time_per_probe", "--format", "json"], check=True, capture_output=True,
                               text=True).stdout
    values = {series["figure"]: series["runs"][-1]["value"] for testbed in json.loads(shown)["testbeds"]
              for series in testbed["series"] if series["cell"] == cell}
    return values["step_time_s"] / values["step_time_per_probe"]


def main():
    ampbench, cell = os.environ["STEADY_HOST_AMPBENCH"], os.environ["STEADY_HOST_CELL"]
    code = subprocess.run([ampbench, *sys.argv[1:]]).returncode
    path = os.path.join(sys.argv[sys.argv.index("--out") + 1], "report.json")
    if os.path.exists(path):
        # Probe times x f divide the step time per probe by f: the level becomes level x f.
        factor = float(os.environ["STEADY_HOST_LEVEL"]) / probe_level(ampbench, path, cell)
        with open(path) as f:
            report = json.load(f)
        for cell_result in report["cells"]:
            if cell_result.get("rounds"):
                cell_result["rounds"]["probe_s"] = [p * factor for p in cell_result["rounds"]["probe_s"]]
        with open(path, "w") as f:
            json.dump(report, f)
    sys.exit(code)


if __name__ == "__main__":
    main()
