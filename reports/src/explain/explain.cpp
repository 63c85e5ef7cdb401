#include "ampbench/reports/explain.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/roofline.h"
#include "ampbench/reports/stats.h"
#include "explain/explain_dominant_op.h"
#include "explain/explain_energy.h"
#include "explain/explain_layers.h"
#include "explain/explain_page_faults.h"
#include "explain/explain_slow_partner.h"
#include "render/format.h"
#include "render/summary_rows.h"

namespace ampbench::reports {
namespace {

const GemmPeak* peak_of(const Environment& env, const std::string& device, const std::string& dtype) {
  for (const auto& peak : env.gemm_peaks) {
    if (peak.device == device && peak.dtype == dtype && peak.status == MeasurementStatus::kMeasured &&
        peak.flops_per_s > 0.0)
      return &peak;
  }
  return nullptr;
}

bool has_flag(const Environment& env, const char* flag) {
  return std::find(env.cpu_flags.begin(), env.cpu_flags.end(), flag) != env.cpu_flags.end();
}

std::string gflops(double flops_per_s) { return detail::format_flop_rate(flops_per_s); }

// The ISA flags of the CPU that give native GEMM in this dtype, and what the CPU has.
std::string cpu_gemm_support(const Environment& env, const std::string& dtype) {
  if (env.cpu_flags.empty()) return "its ISA flags were not recorded (an older report)";
  const bool half = dtype == "float16";
  const char* vector_flag = half ? "avx512_fp16" : "avx512_bf16";
  const char* matrix_flag = half ? "amx_fp16" : "amx_bf16";
  const bool native = has_flag(env, vector_flag) || has_flag(env, matrix_flag);
  return std::string(native ? "it has " : "it has neither ") +
         (native ? (has_flag(env, matrix_flag) ? matrix_flag : vector_flag)
                 : std::string(vector_flag) + " nor " + matrix_flag) +
         " (flags: " + joined(env.cpu_flags, " ") + ")";
}

// The native-GEMM flags for this dtype that the CPU has ("avx512_fp16", "avx512_fp16 and amx_fp16"),
// or "" when it has none or they were not recorded.
std::string native_gemm_flags(const Environment& env, const std::string& dtype) {
  if (dtype != "float16" && dtype != "bfloat16") return "";
  const bool half = dtype == "float16";
  std::vector<std::string> present;
  for (const char* flag : {half ? "avx512_fp16" : "avx512_bf16", half ? "amx_fp16" : "amx_bf16"}) {
    if (has_flag(env, flag)) present.emplace_back(flag);
  }
  return joined(present, " and ");
}

// A CPU that has the instructions, and a GEMM slower than float32: the instructions are there and
// LibTorch's GEMM does not gain from them (not "no fast GEMM ...; it has avx512_fp16"), and what
// might gain, as far as this run knows: nothing of it was measured.
std::string unused_instructions(const Environment& env, const std::string& native, const std::string& dtype,
                                const std::string& figures) {
  const bool has_matrix = native.find("amx_") != std::string::npos;
  const std::string alternatives =
      "A LibTorch whose " + dtype + " GEMM (oneDNN) uses these instructions" +
      (has_matrix ? " might gain; that was not measured here."
                  : std::string(", or a CPU with ") + (dtype == "float16" ? "amx_fp16" : "amx_bf16") +
                        ", might gain; neither was measured here.");
  return "cpu has " + native + " (flags: " + joined(env.cpu_flags, " ") + "), and LibTorch's " + dtype +
         " GEMM does not gain from " + (native.find(" and ") != std::string::npos ? "them" : "it") +
         " here: " + figures + ". Every matrix product autocast lowers to " + dtype +
         " runs slower than in float32 here. " + alternatives;
}

std::string gpu_gemm_support(const Environment& env, const std::string& device, const std::string& dtype) {
  for (const auto& info : env.devices) {
    if (info.name != device || info.compute_capability.empty()) continue;
    const double capability = std::stod(info.compute_capability);
    const bool tensor_cores = dtype == "bfloat16" ? capability >= 8.0 : capability >= 7.0;
    return info.model + " (compute capability " + info.compute_capability + ") " + (tensor_cores ? "has" : "has no") +
           " " + dtype + " tensor cores";
  }
  return "its compute capability was not recorded";
}

void add(std::vector<Finding>& out, const CellResult& cell, std::string id, std::string sentence,
         std::vector<std::pair<std::string, double>> evidence) {
  out.push_back({std::move(id), key_of(cell).label(), std::move(sentence), std::move(evidence)});
}

// Faster or slower than float32's GEMM, or not told apart: by the interval of the interleaved
// rounds where the report has one, else (an older report) by the two peaks alone, which flip the
// verdict from run to run where a dtype's GEMM runs near float32's (bench/studies/gemm_verdicts.py).
enum class GemmVerdict { kFaster, kSlower, kNotToldApart };

GemmVerdict gemm_verdict(const GemmPeak& low, double ratio) {
  if (!low.versus_float32) return ratio < 1.0 ? GemmVerdict::kSlower : GemmVerdict::kFaster;
  if (low.versus_float32->speed.ci_high < 1.0) return GemmVerdict::kSlower;
  if (low.versus_float32->speed.ci_low > 1.0) return GemmVerdict::kFaster;
  return GemmVerdict::kNotToldApart;
}

std::string gemm_figures(const GemmPeak& low, const GemmPeak& full, double ratio) {
  const auto& dtype = low.dtype;
  const std::string peaks =
      gflops(low.flops_per_s) + " in " + dtype + " against " + gflops(full.flops_per_s) + " in float32";
  if (!low.versus_float32) return "at::mm reaches " + peaks + " (" + detail::format_ratio(ratio) + ")";
  const auto& paired = *low.versus_float32;
  // Older reports, and runs whose dtypes shared no size timed, paired each dtype at its peak's size.
  const std::string sizes = paired.matrix_size > 0
                                ? " as in float32 at " + detail::format_square_size(paired.matrix_size)
                                : " at " + detail::format_square_size(low.matrix_size) + " as in float32 at " +
                                      detail::format_square_size(full.matrix_size);
  return "at::mm runs " + detail::format_ratio_ci(paired.speed) + " as fast in " + dtype + sizes + " over " +
         std::to_string(paired.rounds) + " interleaved rounds (peaks " + peaks + ")";
}

void gemm_finding(const Report& report, const CellResult& cell, std::vector<Finding>& out) {
  const auto& dtype = cell.settings.compute_dtype;
  const auto* low = peak_of(report.environment, cell.device, dtype);
  const auto* full = peak_of(report.environment, cell.device, "float32");
  if (low == nullptr || full == nullptr) return;
  const double ratio = low->versus_float32 ? low->versus_float32->speed.value : low->flops_per_s / full->flops_per_s;
  const std::string support = cell.device == "cpu" ? cpu_gemm_support(report.environment, dtype)
                                                   : gpu_gemm_support(report.environment, cell.device, dtype);
  const std::string figures = gemm_figures(*low, *full, ratio);
  std::vector<std::pair<std::string, double>> evidence = {
      {"gemm_peak_ratio", ratio}, {"dtype_flops_per_s", low->flops_per_s}, {"float32_flops_per_s", full->flops_per_s}};
  if (low->versus_float32) {
    evidence.emplace_back("gemm_ratio_ci_low", low->versus_float32->speed.ci_low);
    evidence.emplace_back("gemm_ratio_ci_high", low->versus_float32->speed.ci_high);
  }
  const auto native = cell.device == "cpu" ? native_gemm_flags(report.environment, dtype) : std::string();
  switch (gemm_verdict(*low, ratio)) {
    case GemmVerdict::kSlower:
      add(out, cell, "no-native-gemm",
          native.empty()
              ? cell.device + " has no fast " + dtype + " GEMM: " + figures + "; " + support +
                    ". Every matrix product autocast lowers to " + dtype + " runs slower than in float32 here."
              : unused_instructions(report.environment, native, dtype, figures),
          std::move(evidence));
      return;
    case GemmVerdict::kNotToldApart:
      add(out, cell, "gemm-like-float32",
          cell.device + "'s " + dtype + " GEMM is neither faster nor slower than float32's within this run's " +
              "precision: " + figures + "; " + support + ". Matrix products gain nothing measurable from " + dtype +
              " here.",
          std::move(evidence));
      return;
    case GemmVerdict::kFaster:
      add(out, cell, "native-gemm", cell.device + " has native " + dtype + " GEMM: " + figures + "; " + support + ".",
          std::move(evidence));
      return;
  }
}

// Per step, the time of one family's categories (every dtype's, for matrix products).
double family_s(const TimeBreakdown& breakdown, OpFamily family) {
  double total = 0.0;
  for (const auto& time : breakdown.categories) {
    if (time.category.family == family) total += time.seconds_per_step;
  }
  return total;
}

void shares_finding(const CellResult& cell, std::vector<Finding>& out) {
  const auto& breakdown = *cell.breakdown;
  const double casts = family_s(breakdown, OpFamily::kCasts);
  const double kept = family_s(breakdown, OpFamily::kKeptInFloat32);
  add(out, cell, "casts-and-float32-ops",
      "Casts take " + detail::format_duration(casts) + " of the " + detail::format_duration(breakdown.step_time_s) +
          " profiled step (" + detail::format_share(casts / breakdown.step_time_s) +
          "); ops autocast keeps in float32 (norms, softmax, losses, reductions) take " +
          detail::format_duration(kept) + " (" + detail::format_share(kept / breakdown.step_time_s) + ").",
      {{"casts_s", casts},
       {"casts_share", casts / breakdown.step_time_s},
       {"float32_ops_s", kept},
       {"float32_ops_share", kept / breakdown.step_time_s}});
}

// The categories that grew most from FP32 to this cell, matrix products aside: what a ceiling
// built from matrix products alone does not see.
std::string growth_text(const TimeBreakdown& fp32, const TimeBreakdown& amp) {
  std::map<OpCategory, double> change;
  for (const auto& time : amp.categories) change[time.category] += time.seconds_per_step;
  for (const auto& time : fp32.categories) change[time.category] -= time.seconds_per_step;
  const double threshold = 0.02 * fp32.step_time_s;
  std::vector<std::pair<std::string, double>> grown;
  for (const auto& [category, delta] : change) {
    if (category.family != OpFamily::kMatmul && delta > threshold) grown.emplace_back(to_string(category), delta);
  }
  const double unattributed = amp.unattributed_s - fp32.unattributed_s;
  if (unattributed > threshold) grown.emplace_back("unattributed", unattributed);
  std::sort(grown.begin(), grown.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [name, delta] : grown) parts.push_back(name + " +" + detail::format_duration(delta));
  return parts.empty() ? "no other category grew by more than 2% of the FP32 step" : joined(parts, ", ");
}

void amdahl_finding(const CellResult& cell, const CellResult& fp32, std::vector<Finding>& out) {
  const auto& amp = *cell.breakdown;
  const auto& base = *fp32.breakdown;
  const double fp32_matmul = family_s(base, OpFamily::kMatmul);
  const double amp_matmul = family_s(amp, OpFamily::kMatmul);
  if (fp32_matmul <= 0.0 || amp_matmul <= 0.0 || !cell.speedup_vs_fp32) return;
  // The share of the timed step, not the profiled one: the profiler's cost per op lengthens the
  // profiled step but barely a matrix product (an H200's SimpleNet FP32: 9.55 ms of products in an
  // 11.09 ms profiled step, 86%, and a 9.85 ms timed one, 97%). Capped: three profiled steps of one
  // process against the rounds' estimate may disagree a little.
  const double timed = detail::timed_step_seconds(fp32);
  const double fp32_step = timed > 0.0 ? timed : base.step_time_s;
  const double share = std::min(1.0, fp32_matmul / fp32_step);
  const double matmul_speedup = fp32_matmul / amp_matmul;
  const double ceiling = 1.0 / ((1.0 - share) + share / matmul_speedup);
  const auto& measured = *cell.speedup_vs_fp32;
  // Within the measured interval, or within 10% of it (the profiled steps are three steps of
  // one process; the speedup is over every round of every worker).
  const bool agrees = ceiling >= measured.ci_low * 0.9 && ceiling <= measured.ci_high * 1.1;
  const double profiled_speedup = base.step_time_s / amp.step_time_s;
  std::string sentence =
      "Amdahl: matrix products and convolutions are " + detail::format_share(share) + " of the timed FP32 step (" +
      detail::format_duration(fp32_matmul) + " of " + detail::format_duration(fp32_step) + ") and run " +
      detail::format_ratio(matmul_speedup) + " as fast in " + cell.settings.compute_dtype +
      " at these shapes, so the best speedup this model can get is " + detail::format_ratio(ceiling) + "; measured " +
      detail::format_ratio_ci(measured) + " (the profiled steps: FP32 " + detail::format_duration(base.step_time_s) +
      ", this " + detail::format_duration(amp.step_time_s) + ", " + detail::format_ratio(profiled_speedup) + "). ";
  sentence += agrees ? "They agree: the matrix products decide this cell's speedup."
                     : "The gap is what the ceiling leaves out: " + growth_text(base, amp) + " per step.";
  add(out, cell, "amdahl-ceiling", sentence,
      {{"float32_matmul_share", share},
       {"float32_step_s", fp32_step},
       {"matmul_speedup", matmul_speedup},
       {"ceiling", ceiling},
       {"measured_speedup", measured.value},
       {"profiled_speedup", profiled_speedup},
       {"agrees", agrees ? 1.0 : 0.0}});
}

void scaler_findings(const CellResult& cell, std::vector<Finding>& out) {
  if (!cell.scaler || cell.scaler->scale.empty()) return;
  const auto& scaler = *cell.scaler;
  const auto steps = static_cast<double>(scaler.scale.size());
  if (!scaler.skipped_steps.empty()) {
    const auto skipped = static_cast<double>(scaler.skipped_steps.size());
    add(out, cell, "skipped-steps",
        "The GradScaler skipped " + std::to_string(scaler.skipped_steps.size()) + " of " +
            std::to_string(scaler.scale.size()) + " steps (" + detail::format_share(skipped / steps) +
            ") for inf/NaN gradients: those steps cost time and trained nothing.",
        {{"skipped_steps", skipped}, {"steps", steps}});
  }
  const double first = scaler.scale.front();
  const double last = scaler.scale.back();
  if (last < 1.0 || last < first / 256.0) {
    add(out, cell, "scale-collapse",
        "The loss scale fell from " + detail::format_general(first) + " to " + detail::format_general(last) +
            ": gradients overflow in float16 at almost any scale, a sign of values float16 cannot hold.",
        {{"first_scale", first}, {"last_scale", last}});
  }
}

void gpu_findings(const CellResult& cell, const CellResult* fp32, std::vector<Finding>& out) {
  if (cell.device.rfind("cuda", 0) != 0) return;
  if (fp32 != nullptr && (fp32->settings.tf32_matmul || fp32->settings.float32_matmul_precision != "highest")) {
    add(out, cell, "tf32-baseline",
        "The FP32 baseline already ran its matrix products in TF32 on tensor cores (float32 matmul precision " +
            fp32->settings.float32_matmul_precision + "): the speedup is over TF32, not over full float32.",
        {{"baseline_tf32", 1.0}});
  }
  // Whether the GPU waits for the CPU: the host's cost to issue a step against the device's step.
  // Not the median host time: once the launch queue is full the host waits for the device and its
  // time per step equals the device's whichever is slower (on an H200 every AMP cell's did). The
  // first steps after each round's sync issue into an empty queue, so the fastest tenth is the
  // issue cost. A GradScaler step waits for its inf check (one sync per step, as PyTorch's does), so
  // there the host's time includes the device's and cannot say who waits.
  if (!cell.host_step_times_s.empty() && !cell.step_times_s.empty() && !cell.scaler) {
    const double issue = quantile(cell.host_step_times_s, 0.1);
    const double ratio = issue / quantile(cell.step_times_s, 0.5);
    if (ratio >= 0.8) {
      add(out, cell, "host-bound",
          "Issuing a step takes the host " + detail::format_share(ratio) +
              " of the device's step time (its fastest tenth of steps, issued into an empty launch queue, over "
              "the median device step): the GPU waits for the CPU, so faster kernels barely shorten the step.",
          {{"host_share", ratio}});
    }
  }
}

// The cell against its chip's datasheet: what share of the dense peak the model's FLOPs reach, and
// how much of the gap at::mm itself leaves (the measured GEMM peak over the same datasheet figure).
void mfu_finding(const Report& report, const CellResult& cell, std::vector<Finding>& out) {
  if (cell.device.rfind("cuda", 0) != 0) return;
  const auto mfu = model_flops_utilisation(report.environment, cell);
  if (!mfu) {
    add(out, cell, "mfu-unknown", "No MFU: " + why_no_mfu(report.environment, cell) + ".", {});
    return;
  }
  const double datasheet = datasheet_peak(*datasheet_peaks_of(report.environment, cell), peak_dtype(cell));
  std::string sentence =
      "The step reaches " + detail::format_share(*mfu) + " MFU: " + gflops(cell.throughput.achieved_flops_per_s) +
      " of model FLOPs against the chip's " + peak_dtype(cell) + " datasheet dense peak of " + gflops(datasheet);
  std::vector<std::pair<std::string, double>> evidence{{"mfu", *mfu}, {"datasheet_flops_per_s", datasheet}};
  if (const GemmPeak* measured = find_gemm_peak(report.environment, cell.device, peak_dtype(cell))) {
    sentence += " (at::mm alone reached " + detail::format_share(measured->flops_per_s / datasheet) + " of it here)";
    evidence.emplace_back("gemm_share_of_datasheet", measured->flops_per_s / datasheet);
  }
  add(out, cell, "mfu", sentence + ".", std::move(evidence));
}

// What the host costs an eager AMP cell, from its graphed twin in the same rounds (--graphs both):
// the eager step less the graphed one is the host issuing kernels, which a replay does not do.
void graph_host_cost_finding(const Report& report, const CellResult& cell, std::vector<Finding>& out) {
  if (is_graphed_mode(cell.mode)) return;
  const CellResult* twin = sibling_cell(report, cell, graphed_mode_of(cell.mode));
  if (twin == nullptr) return;
  const double eager_s = detail::timed_step_seconds(cell);
  const double graphed_s = detail::timed_step_seconds(*twin);
  const double host_s = eager_s - graphed_s;
  std::vector<std::pair<std::string, double>> evidence{
      {"host_cost_s", host_s}, {"eager_step_s", eager_s}, {"graphed_step_s", graphed_s}};
  std::string sentence =
      host_s > 0.0 ? detail::format_duration(host_s) + " of each eager step (" + detail::format_duration(eager_s) +
                         ") is the host issuing kernels: replayed from a CUDA graph the step takes " +
                         detail::format_duration(graphed_s)
                   : "Replayed from a CUDA graph the step takes " + detail::format_duration(graphed_s) + " against " +
                         detail::format_duration(eager_s) + " eager: the host issuing kernels does not bound it";
  if (twin->speedup_vs_fp32 && cell.speedup_vs_fp32) {
    sentence += "; graphed, the speedup over FP32 is " + detail::format_ratio_ci(*twin->speedup_vs_fp32) + " (eager " +
                detail::format_ratio_ci(*cell.speedup_vs_fp32) + ")";
    evidence.emplace_back("graphed_speedup", twin->speedup_vs_fp32->value);
  }
  add(out, cell, "graph-host-cost", sentence + ".", std::move(evidence));
}

// Tensor cores take float16/bfloat16 GEMMs whose dimensions are multiples of 8; the others run on
// slower paths (CUDA cells only: a CPU has no such rule).
void unaligned_finding(const CellResult& cell, std::vector<Finding>& out) {
  if (cell.device.rfind("cuda", 0) != 0 || !cell.breakdown) return;
  const auto& breakdown = *cell.breakdown;
  const double matmul = family_s(breakdown, OpFamily::kMatmul);
  if (matmul <= 0.0 || breakdown.unaligned_matmul_s <= 0.05 * matmul) return;
  add(out, cell, "unaligned-shapes",
      detail::format_share(breakdown.unaligned_matmul_s / matmul) +
          " of the matrix products' time is in ops whose dimensions are not multiples of 8 (" +
          joined(breakdown.unaligned_matmul_ops, "; ") + "): " + cell.settings.compute_dtype +
          " tensor cores need multiples of 8, so these take slower paths; pad the sizes to multiples of 8.",
      {{"unaligned_matmul_s", breakdown.unaligned_matmul_s},
       {"unaligned_share", breakdown.unaligned_matmul_s / matmul}});
}

}  // namespace

std::vector<Finding> explain(const Report& report) {
  std::vector<Finding> out;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.settings.autocast) continue;
    const auto before = out.size();
    const CellResult* fp32 = reference_cell(report, cell);
    gemm_finding(report, cell, out);
    if (cell.breakdown) shares_finding(cell, out);
    if (cell.breakdown && fp32 != nullptr && fp32->breakdown) {
      amdahl_finding(cell, *fp32, out);
      detail::dominant_op_finding(*cell.breakdown, *fp32->breakdown, cell, out);
    }
    scaler_findings(cell, out);
    gpu_findings(cell, fp32, out);
    mfu_finding(report, cell, out);
    graph_host_cost_finding(report, cell, out);
    detail::energy_findings(report, cell, out);
    unaligned_finding(cell, out);
    detail::layer_findings(report, cell, out);
    std::vector<std::string> missing;
    if (!cell.breakdown) {
      missing.push_back(is_graphed_mode(cell.mode) ? "no profiled time breakdown (a graphed cell replays kernels, not "
                                                     "the ops a breakdown attributes time to)"
                        : report.config.breakdown  ? "no profiled time breakdown (a report from before it)"
                                                   : "no profiled time breakdown (the run had --no-breakdown)");
    }
    if (fp32 == nullptr) missing.push_back("no successful FP32 cell to compare with");
    if (peak_of(report.environment, cell.device, cell.settings.compute_dtype) == nullptr)
      missing.push_back("no measured " + cell.settings.compute_dtype + " GEMM peak");
    if (out.size() == before || !missing.empty()) {
      if (missing.empty()) missing.push_back("no rule found anything to say");
      add(out, cell, "unavailable", "Not explained: " + joined(missing, "; ") + ".", {});
    }
  }
  detail::page_fault_findings(report, out);
  detail::slow_partner_findings(report, out);
  detail::timed_apart_findings(report, out);
  // One cell's findings together, cells in the report's order: the renderers head each run of one
  // cell's findings with its name, and the rules over every cell above came after the per-cell ones.
  std::map<std::string, std::size_t> position;
  for (const auto& cell : report.cells) position.emplace(key_of(cell).label(), position.size());
  std::stable_sort(out.begin(), out.end(),
                   [&](const Finding& a, const Finding& b) { return position.at(a.cell) < position.at(b.cell); });
  return out;
}

std::vector<Finding> findings_for(const std::vector<Finding>& findings, const std::string& cell_prefix) {
  std::vector<Finding> out;
  for (const auto& finding : findings) {
    if (finding.cell.rfind(cell_prefix, 0) == 0) out.push_back(finding);
  }
  return out;
}

std::string render_why_text(const std::vector<Finding>& findings) {
  std::string out;
  std::string cell;
  for (const auto& finding : findings) {
    if (finding.cell != cell) {
      out += (cell.empty() ? "" : "\n") + finding.cell + "\n";
      cell = finding.cell;
    }
    out += "  - " + finding.sentence + "\n";
  }
  return out;
}

std::string render_why_markdown(const std::vector<Finding>& findings) {
  if (findings.empty()) return "";
  std::string out = "### Why\n\n";
  std::string cell;
  for (const auto& finding : findings) {
    if (finding.cell != cell) {
      out += (cell.empty() ? "" : "\n") + ("**" + finding.cell + "**\n\n");
      cell = finding.cell;
    }
    out += "- " + finding.sentence + "\n";
  }
  return out + "\n";
}

}  // namespace ampbench::reports
