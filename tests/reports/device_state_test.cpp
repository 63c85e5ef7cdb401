// A GPU's state beside the figures: the throttle rule and what it leaves out, energy per step and
// against FP32, the JSON they travel in, every renderer, check's verdicts and explain's findings.
#include <gtest/gtest.h>

#include <algorithm>

#include "ampbench/reports/check.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/explain.h"
#include "ampbench/reports/html.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/stats.h"
#include "ampbench/reports/table.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_gpu_state_report;
using ampbench::testing::make_sample_report;
using ampbench::testing::report_read_error;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DeviceState, OnlyIdleAndTheClockSettingsDoNotSlowTheClocks) {
  for (const auto* reason : {"gpu_idle", "applications_clocks_setting", "display_clock_setting"}) {
    EXPECT_FALSE(reason_slows_clocks(reason)) << reason;
  }
  for (const auto* reason : {"sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
                             "hw_power_brake_slowdown", "unknown_0x200"}) {
    EXPECT_TRUE(reason_slows_clocks(reason)) << reason;
  }
}

TEST(DeviceState, ARoundIsThrottledByAReasonOrAClockBelowTheThreshold) {
  DeviceRounds device;
  device.max_sm_clock_mhz = 2000.0;
  GpuRoundState round;
  round.sm_clock_mhz = 1500.0;  // exactly 75%: not below
  round.reasons = {"gpu_idle", "applications_clocks_setting"};
  EXPECT_TRUE(throttle_causes(device, round).empty());
  round.sm_clock_mhz = 1499.0;
  EXPECT_EQ(throttle_causes(device, round), std::vector<std::string>{kClockBelowThreshold});
  device.throttle_threshold_percent = 50.0;
  EXPECT_TRUE(throttle_causes(device, round).empty());
  round.reasons.push_back("hw_thermal_slowdown");
  EXPECT_EQ(throttle_causes(device, round), std::vector<std::string>{"hw_thermal_slowdown"});
  device.max_sm_clock_mhz.reset();  // no maximum known: the clock cannot be judged, the reasons can
  round.sm_clock_mhz = 10.0;
  EXPECT_EQ(throttle_causes(device, round), std::vector<std::string>{"hw_thermal_slowdown"});
}

TEST(DeviceState, ThrottledRoundsAreCountedAndLeftOutOfTheSpeedup) {
  const auto report = make_gpu_state_report();
  const auto& fp32 = report.cells[0];
  const auto& bf16 = report.cells[1];
  EXPECT_EQ(bf16.rounds->device->throttled_rounds, 2);
  EXPECT_EQ(fp32.rounds->device->throttled_rounds, 2);
  std::vector<double> kept_fp32;
  std::vector<double> kept_bf16;
  for (const std::size_t round : {0, 2, 4}) {
    kept_fp32.push_back(fp32.rounds->step_time_s[round]);
    kept_bf16.push_back(bf16.rounds->step_time_s[round]);
  }
  const auto expected = paired_round_ratio(kept_fp32, kept_bf16, {0, 0, 0});
  ASSERT_TRUE(bf16.speedup_vs_fp32);
  EXPECT_DOUBLE_EQ(bf16.speedup_vs_fp32->value, expected.value);
  EXPECT_NEAR(bf16.speedup_vs_fp32->value, 2.0, 0.05);  // the throttled rounds' 1.33x would pull it down
  // Fewer than two unthrottled rounds: every round counts, the figure describes the throttled GPU.
  const auto mostly = make_gpu_state_report(4);
  EXPECT_EQ(mostly.cells[1].rounds->device->throttled_rounds, 4);
  EXPECT_LT(mostly.cells[1].speedup_vs_fp32->value, 1.6);
}

TEST(DeviceState, EnergyPerStepIsEachRoundsJoulesOverItsStepsAndTheRatioPairsTheRounds) {
  const auto report = make_gpu_state_report();
  const auto& fp32 = report.cells[0];
  const auto& bf16 = report.cells[1];
  const auto per_step = joules_per_step_by_round(bf16);
  ASSERT_EQ(per_step.size(), 5u);
  EXPECT_DOUBLE_EQ(per_step[0], 0.33);
  EXPECT_DOUBLE_EQ(per_step[1], 0.33 * 1.5 * 1.01);
  const auto estimate = summarize_rounds(per_step, bf16.rounds->round_replicate);
  EXPECT_DOUBLE_EQ(bf16.energy->joules_per_step.value, estimate.value);
  EXPECT_GT(bf16.energy->joules_per_step.ci_high, bf16.energy->joules_per_step.ci_low);
  double joules = 0.0;
  double seconds = 0.0;
  for (std::size_t round = 0; round < 5; ++round) {
    joules += bf16.energy->round_joules[round];
    seconds += bf16.energy->round_window_s[round];
  }
  EXPECT_DOUBLE_EQ(bf16.energy->average_power_w, joules / seconds);
  // The ratio leaves out the throttled rounds, as the speedup does.
  const auto fp32_per_step = joules_per_step_by_round(fp32);
  const auto expected = paired_round_ratio({per_step[0], per_step[2], per_step[4]},
                                           {fp32_per_step[0], fp32_per_step[2], fp32_per_step[4]}, {0, 0, 0});
  ASSERT_TRUE(bf16.energy_ratio_vs_fp32);
  EXPECT_DOUBLE_EQ(bf16.energy_ratio_vs_fp32->value, expected.value);
  EXPECT_NEAR(bf16.energy_ratio_vs_fp32->value, 0.55, 0.01);
  EXPECT_FALSE(fp32.energy_ratio_vs_fp32);
}

TEST(DeviceState, TheStateAndTheEnergyTravelInTheJsonAndAreCheckedAgainstTheirSamples) {
  const auto report = make_gpu_state_report();
  const nlohmann::json json = report;
  EXPECT_EQ(report_read_error(json), "(no error)");
  const auto back = parse_report(json);
  ASSERT_TRUE(back.cells[1].rounds->device && back.cells[1].energy);
  EXPECT_EQ(back.cells[1].rounds->device->rounds[1].reasons,
            (std::vector<std::string>{"applications_clocks_setting", "sw_power_cap"}));
  EXPECT_EQ(back.cells[1].rounds->device->rounds[1].violation_s.front().first, "power");
  EXPECT_EQ(back.cells[1].energy->round_joules, report.cells[1].energy->round_joules);
  EXPECT_EQ(back.environment.energy_meter->meter, "NVML total energy counter");
  EXPECT_EQ(back.environment.devices[1].clocks->max_sm_clock_mhz, 1980.0);
  EXPECT_EQ(nlohmann::json(back), json);

  auto tampered = json;
  tampered["cells"][1]["rounds"]["device"]["throttled_rounds"] = 0;
  EXPECT_TRUE(contains(report_read_error(tampered), "cells[1].rounds.device.throttled_rounds: 0 is stored"))
      << report_read_error(tampered);
  tampered = json;
  tampered["cells"][1]["energy"]["round_joules"].erase(0);
  EXPECT_TRUE(contains(report_read_error(tampered), "cells[1].energy.round_joules: 4 values for 5 rounds"))
      << report_read_error(tampered);
  tampered = json;
  tampered["cells"][1]["energy_ratio_vs_fp32"]["value"] = 0.9;
  EXPECT_TRUE(contains(report_read_error(tampered), "cells[1].energy_ratio_vs_fp32.value"));
  tampered = json;
  tampered["cells"][1]["rounds"]["device"]["throttle_threshold_percent"] = 120;
  EXPECT_TRUE(contains(report_read_error(tampered), "throttle_threshold_percent: must be in (0, 100]"));
  tampered = json;
  tampered["environment"]["energy_meter"] = {
      {"device", "cpu"}, {"status", "unavailable"}, {"meter", ""}, {"reason", ""}};
  EXPECT_TRUE(contains(report_read_error(tampered), "energy_meter.reason: an unavailable energy meter needs a reason"));
  // A report without any of it (a CPU run where the meter was unavailable) writes none of the keys.
  const nlohmann::json cpu = make_sample_report();
  EXPECT_FALSE(cpu["cells"][0].contains("energy"));
  EXPECT_FALSE(cpu["cells"][0]["rounds"].is_object() && cpu["cells"][0]["rounds"].contains("device"));
}

TEST(DeviceState, EveryRendererShowsEnergyAndTheGpuState) {
  const auto report = make_gpu_state_report();
  const std::string state =
      "GPU state (NVML, per round): SM clock 1200-1980 MHz (maximum 1980), memory clock 2619 MHz, power 540 W, up to "
      "61 C. Throttled rounds (a slowing clocks-event reason, or the SM clock below 75% of its maximum: "
      "--throttle-threshold) are left out of the speedups while two remain: simple_net/fp32/cuda:0 2 of 5 "
      "(sm_clock_below_threshold, sw_power_cap); simple_net/bf16/cuda:0 2 of 5";
  const std::string locking = "`sudo nvidia-smi --lock-gpu-clocks=1980,1980`";
  const std::string energy =
      "Energy (NVML total energy counter): the counter read before and after each cell's "
      "timed steps in every round, once the GPU finished them";
  for (const auto& page : {render_table(report), render_markdown(report), render_html(report)}) {
    EXPECT_TRUE(contains(page, state)) << page;
    EXPECT_TRUE(contains(page, locking));
    EXPECT_TRUE(contains(page, energy));
    EXPECT_TRUE(contains(page, "energy/step (95% CI)"));
    EXPECT_TRUE(contains(page, "energy vs fp32"));
    EXPECT_TRUE(contains(page, "602.4 mJ [598.3, 606.5]")) << page;  // fp32's joules per step, over its rounds
  }
  EXPECT_TRUE(contains(render_html(report), "id=\"chart-energy\""));
  // Steady clocks: no advice to lock them.
  auto steady = report;
  for (auto& cell : steady.cells) {
    for (auto& round : cell.rounds->device->rounds) round.sm_clock_mhz = 1980.0;
  }
  EXPECT_FALSE(contains(render_table(steady), "--lock-gpu-clocks"));
  // Windows shorter than ten of the counter's updates are called coarse.
  EXPECT_TRUE(contains(render_table(report), "simple_net/bf16/cuda:0's windows are"));
}

TEST(DeviceState, ARunWithoutAnEnergyMeterSaysWhy) {
  auto report = make_sample_report();
  report.environment.energy_meter =
      EnergyMeterRecord{"cpu", MeasurementStatus::kUnavailable, "",
                        "/sys/class/powercap: no such folder: the kernel exposes no powercap (RAPL) interface"};
  const std::string note =
      "Energy: not measured on cpu: /sys/class/powercap: no such folder: the kernel exposes no powercap (RAPL) "
      "interface.";
  for (const auto& page : {render_table(report), render_markdown(report), render_html(report)}) {
    EXPECT_TRUE(contains(page, note)) << page;
    EXPECT_FALSE(contains(page, "energy/step"));
  }
}

TEST(DeviceState, CheckLeavesAMostlyThrottledCellUnjudgedAndFailsOnEnergy) {
  const auto base = make_gpu_state_report();
  const auto throttled = make_gpu_state_report(4);
  const auto result = check_reports(compare_reports(base, throttled), {});
  const auto& bf16 = result.cells[1];
  EXPECT_EQ(bf16.verdict, Verdict::kInconclusive);
  ASSERT_FALSE(bf16.reasons.empty());
  EXPECT_STREQ(reason_id(bf16.reasons.front()), "throttled");
  EXPECT_EQ(describe_reason(bf16.reasons.front()),
            "the current rounds ran mostly throttled (4 of 5: sw_power_cap): its step time is the throttled GPU's, "
            "not judged");

  auto dearer = make_gpu_state_report();
  for (auto& joules : dearer.cells[1].energy->round_joules) joules *= 1.2;
  derive_step_figures(dearer.cells[1]);
  relate_to_fp32(dearer);
  const auto energy = check_reports(compare_reports(base, dearer), {});
  EXPECT_EQ(energy.cells[1].verdict, Verdict::kRegressed);
  EXPECT_STREQ(reason_id(energy.cells[1].reasons.back()), "energy");
  EXPECT_TRUE(contains(describe_reason(energy.cells[1].reasons.back()), "energy per step +20.0%"));
  CheckOptions loose;
  loose.max_energy_growth = 0.25;
  EXPECT_EQ(check_reports(compare_reports(base, dearer), loose).cells[1].verdict, Verdict::kPass);
  loose.max_energy_growth = -1.0;
  EXPECT_THROW((void)check_reports(compare_reports(base, dearer), loose), std::invalid_argument);
}

TEST(DeviceState, ExplainSaysWhatAStepCostsAndWhenTimeAndEnergyDisagree) {
  auto report = make_gpu_state_report();
  const auto findings = explain(report);
  const auto energy = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.id == "energy"; });
  ASSERT_NE(energy, findings.end());
  EXPECT_TRUE(contains(energy->sentence, "bf16: 0.55x")) << energy->sentence;
  EXPECT_TRUE(contains(energy->sentence, "the energy of an fp32 step (389.7 mJ against 602.4 mJ per step"))
      << energy->sentence;
  EXPECT_TRUE(
      std::none_of(findings.begin(), findings.end(), [](const Finding& f) { return f.id == "energy-time-disagree"; }));
  // Twice as fast, but every joule of FP32's spent anyway: faster but no cheaper.
  for (auto& joules : report.cells[1].energy->round_joules) joules *= 0.60 / 0.33;
  derive_step_figures(report.cells[1]);
  relate_to_fp32(report);
  const auto disagree = explain(report);
  const auto found =
      std::find_if(disagree.begin(), disagree.end(), [](const Finding& f) { return f.id == "energy-time-disagree"; });
  ASSERT_NE(found, disagree.end());
  EXPECT_TRUE(contains(found->sentence, "Faster (")) << found->sentence;
  EXPECT_TRUE(contains(found->sentence, "but no cheaper"));
}

}  // namespace
