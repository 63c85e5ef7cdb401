#!/usr/bin/env bash
# The GPU verification kit's whole path on a machine without a GPU: --prepare downloads the .deb
# files, the kit unpacks them into its private prefix, configures against that prefix, builds the
# CLI, and runs env, the suite and the CUPTI self-check with --device cpu. Skipped (exit 77) only
# when the Debian registry cannot be reached or the disk fills up, both outside the project.
# Usage: gpu_verify_on_cpu.sh SOURCE_DIR WORK_DIR PYTHON
set -uo pipefail
source_dir=$1 work=$2 python=$3
fail() { echo "gpu_verify_on_cpu: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work"
"$source_dir/scripts/gpu-verify" --prepare "$work/debs" >"$work/prepare.log" 2>&1 ||
  { cat "$work/prepare.log"; echo "SKIP: no Debian registry here"; exit 77; }

# The kit configures and builds its own tree against the private prefix, as on a GPU machine. Its
# objects come from ccache where an earlier run of this test (in this clone or another) compiled
# the same sources: the kit's paths lie under the checkout, which ccache keys relative to it.
"$source_dir/scripts/gpu-verify" --deps "$work/debs" --out "$work/out" --device cpu --skip-tests \
  --jobs 2 --python "$python"
rc=$?
cat "$work/out/summary.txt"
if [ $rc -ne 0 ] && grep -qs "No space left on device" "$work"/out/*.log; then
  df -h "$work" >&2
  echo "SKIP: the disk filled up while the kit built (its build takes about 1 GB)"
  exit 77
fi
[ $rc -eq 0 ] || fail "the kit exited $rc"

# What the kit claims, checked: every step ran and passed; the dependencies came from its prefix.
for step in "unpack dependencies" configure build "ampbench env" suite "gpu suite" graphs energy "data parallel" "cupti self-check" \
  "cupti metrics" partners "partners, 8 per round"; do
  grep -q "^$step  *ok " "$work/out/summary.txt" || fail "step '$step' did not pass"
done
packed=$(tar -tzf "$work/out.tgz") || fail "the kit did not pack its results into out.tgz"
grep -qx './summary.txt' <<<"$packed" || fail "out.tgz does not hold the summary"
! grep -q '^\./build/' <<<"$packed" || fail "out.tgz holds the build tree"
grep -q "^nlohmann_json_DIR:PATH=$work/out/deps/" "$work/out/build/CMakeCache.txt" ||
  fail "nlohmann_json was not taken from the kit's private prefix"
grep -q "^SQLite3_INCLUDE_DIR:PATH=$work/out/deps/" "$work/out/build/CMakeCache.txt" ||
  fail "SQLite's headers were not taken from the kit's private prefix"
"$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["environment"]["allocator"]["library"].startswith(sys.argv[2])' \
  "$work/out/cupti/report.json" "$work/out/deps/" || fail "the self-check's jemalloc was not the private prefix's"
"$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["torch_version"]' "$work/out/env.json" ||
  fail "env.json is not ampbench env's JSON"
for mode in fp32 fp16 bf16; do
  "$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert any(c["mode"] == sys.argv[2] and c["status"] == "ok" for c in r["cells"])' \
    "$work/out/suite/report.json" "$mode" || fail "the suite has no passing $mode cell"
done
# Without --preset the run took the device's, and said so.
"$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["config"]["preset"] == "default"' \
  "$work/out/gpu-suite/report.json" || fail "the gpu-suite step on a CPU did not use the default preset"
grep -q "^preset default: --preset not given and the device is cpu" "$work/out/gpu-suite.log" ||
  fail "the gpu-suite step did not say which preset it chose"
"$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert any(c["ranks"] == 2 and c["status"] == "ok" and c["data_parallel"]["grad_compression"] == "bf16" for c in r["cells"])' \
  "$work/out/ranks/report.json" || fail "the data-parallel step has no passing 2-rank cell"
"$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert {f["arrangement"] for f in r["figures"]} == {"alone-bf16", "fp32+bf16", "suite"}' \
  "$work/out/partners/partners.json" || fail "the partners step did not measure bf16 alone, beside FP32 and in the suite"
# The energy step says what measured energy, or why nothing could (RAPL is root's since Linux 5.10).
grep -q "^energy meter: \(measured\|unavailable\): ." "$work/out/energy.txt" ||
  fail "energy.txt does not say what measured energy: $(cat "$work/out/energy.txt")"
# On a CPU the self-check names why there are no tensor-core counters.
grep -q "^simplenet/fp32: unavailable (.\+)" "$work/out/cupti-metrics.txt" ||
  fail "cupti-metrics.txt does not give the unavailable reason: $(cat "$work/out/cupti-metrics.txt")"
# --only: a second pass over the same build runs the named step and none of the other runs; a step
# that is not the kit's is bad usage, refused before anything runs.
"$source_dir/scripts/gpu-verify" --deps "$work/debs" --out "$work/out" --device cpu --skip-tests --jobs 2 \
  --python "$python" --only partners >"$work/only.log" 2>&1 || { cat "$work/only.log"; fail "--only partners failed"; }
grep -q "^partners  *ok " "$work/out/summary.txt" || fail "--only partners did not run the partners step"
"$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["round_steps"] == 8' \
  "$work/out/partners-8/partners.json" || fail "the second partners run did not ask for 8 steps per round"
! grep -qE "^(suite|data parallel|cupti self-check|validity) " "$work/out/summary.txt" ||
  fail "--only partners ran other steps: $(cat "$work/out/summary.txt")"
"$source_dir/scripts/gpu-verify" --deps "$work/debs" --out "$work/out" --only partners,suites 2>"$work/bad-only.log"
[ $? -eq 2 ] && grep -q "^gpu-verify: --only: 'suites' is not a step" "$work/bad-only.log" ||
  fail "--only with an unknown step was not a usage error: $(cat "$work/bad-only.log")"
rm -rf "$work/out/build"  # 1 GB; the logs and reports stay
echo "gpu-verify kit: ok"
