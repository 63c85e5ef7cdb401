#!/usr/bin/env bash
# The examples as a user runs them: usage: run_examples.sh PYTHON SOURCE_DIR BUILD_DIR.
# Every CPU mode of each example completes, the report validates against the schema, the residual
# CNN's FLOPs are counted (within 5% of the hand count) and the GRU's are the ones it states, and
# every cell's numerics pass has ranges per layer under the example's own module names. On a
# machine with a GPU, each example also runs there, as a user there runs it.
set -euo pipefail
python=$1 source_dir=$2 build=$3
out="$build/runs"
rm -rf "$out"

# run_example NAME LOG ARGS...: the example's run; a failure prints its log, and a crash also its
# stack under a debugger when one is installed (the GPU kit's H200 has cuda-gdb, not gdb): on an
# H200 the examples' runs on the GPU died of SIGSEGV with nothing in their logs.
run_example() {
  local example=$1 log=$2 code=0
  shift 2
  "$build/$example" "$@" >"$log" 2>&1 || code=$?
  [ $code -eq 0 ] && return 0
  cat "$log" >&2
  echo "$example $*: exit $code" >&2
  local debugger
  debugger=$(command -v gdb || command -v cuda-gdb || true)
  if [ $code -ge 128 ] && [ -n "$debugger" ]; then
    "$debugger" -batch -ex run -ex bt -ex "info registers rip rsp" -ex "x/2gx \$rsp" --args "$build/$example" "$@" >&2 2>&1 || true
  fi
  return 1
}

for example in mlp residual_cnn gru_classifier; do
  "$build/$example" list | grep -q "^  *$example " || { echo "$example: not listed" >&2; "$build/$example" list >&2; exit 1; }
  run_example "$example" "$out-$example.log" run --workloads "$example" --device cpu --preset seed --replicates 1 \
    --steps 12 --time-cap 2 --numerics-steps 2 --out "$out/$example"
  "$python" "$source_dir/tests/reports/validate_schema.py" "$source_dir/reports/schema/report.schema.json" \
    "$out/$example/report.json"
done

if "$build/mlp" env --json | "$python" -c 'import json, sys; sys.exit(not any(d["name"].startswith("cuda:") for d in json.load(sys.stdin)["devices"]))'; then
  for example in mlp residual_cnn gru_classifier; do
    run_example "$example" "$out-$example-cuda.log" run --workloads "$example" --device cuda --modes fp32,bf16 \
      --preset seed --replicates 1 --steps 12 --time-cap 2 --numerics-steps 8 --out "$out/$example-cuda"
    "$python" -c 'import json, sys; bad = [c["mode"] for c in json.load(open(sys.argv[1]))["cells"] if c["status"] != "ok"]; sys.exit(f"{sys.argv[2]} on cuda: failed cells {bad}" if bad else 0)' \
      "$out/$example-cuda/report.json" "$example"
  done
fi
"$python" - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def cells(example):
    report = json.load(open(f"{out}/{example}/report.json"))
    modes = {c["mode"]: c for c in report["cells"]}
    assert sorted(modes) == ["bf16", "fp16", "fp32"], f"{example}: modes {sorted(modes)}"
    for mode, cell in modes.items():
        assert cell["status"] == "ok", f"{example} {mode}: {cell.get('error')}"
    return modes
# examples/residual_cnn.cpp at batch 32: stem 3->16 and four 16->16 3x3 convs on 32x32, fc 16->10.
pixels, batch = 32 * 32, 32
hand = 3 * (2 * batch * 16 * pixels * 3 * 9 + 4 * 2 * batch * 16 * pixels * 16 * 9 + 2 * batch * 16 * 10)
for mode, cell in cells("residual_cnn").items():
    flops = cell["throughput"]["flops_per_step"]
    assert cell["throughput"]["flops_source"] == "counted", cell["throughput"]["flops_source"]
    assert abs(flops / hand - 1) <= 0.05, f"residual_cnn {mode}: counted {flops:.4g}, hand {hand:.4g}"
for mode, cell in cells("mlp").items():
    assert cell["throughput"]["flops_source"] == "counted", cell["throughput"]["flops_source"]
for mode, cell in cells("gru_classifier").items():
    assert cell["throughput"]["flops_source"] == "workload", cell["throughput"]["flops_source"]
# The ranges per layer (issue #34) name each model's own modules by their registered paths.
expected_modules = {
    "mlp": {"0", "2"},  # Sequential's indices; ReLU has no parameters, so no row
    "residual_cnn": {"stem", "bn", "fc"} | {f"block{b}.{m}" for b in (1, 2) for m in ("conv1", "bn1", "conv2", "bn2")},
    "gru_classifier": {"embedding", "gru", "fc"},
}
for example, modules in expected_modules.items():
    for mode, cell in cells(example).items():
        layers = cell["numerics"]["run"]["layers"]
        named = {layer["module"] for layer in layers["layers"]}
        assert named == modules, f"{example} {mode}: layers {sorted(named)}, expected {sorted(modules)}"
        assert layers["steps"], f"{example} {mode}: no observed step"
print(f"residual_cnn FLOPs per step: counted {flops:.6g}, hand count {hand:.6g}")
PY
echo "examples: ok"
