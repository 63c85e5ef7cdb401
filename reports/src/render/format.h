// How numbers read in every rendered report (terminal, Markdown, HTML): durations in human units
// with their interval, ratios as "1.39x [1.37, 1.41]", percentages with a sign, bytes in MiB/GiB.
// One place, so the three renderers never disagree on a figure. Percentages and lists follow the
// public text_format.h, which the history and the CLI use too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ampbench/reports/report.h"
#include "ampbench/reports/text_format.h"

namespace ampbench::reports::detail {

// What a table cell shows where a figure does not apply.
inline constexpr const char* kNone = "-";

// "1.250 ms": four significant digits in ns, µs, ms or s, whichever keeps the value in [1, 1000).
[[nodiscard]] std::string format_duration(double seconds);
// "12.3 ms [12.0, 12.7]": a time with its interval, in the value's unit.
[[nodiscard]] std::string format_duration_interval(double value, double low, double high);
// "2.41 J [2.38, 2.45]", "812.0 mJ": energy as durations are, in kJ, J, mJ or µJ.
[[nodiscard]] std::string format_energy_interval(double value, double low, double high);
[[nodiscard]] std::string format_energy(double joules);
// "1.250 ms [1.225, 1.275]": the median and its CI in the median's unit and precision.
[[nodiscard]] std::string format_duration_ci(const SampleSummary& summary);
// "1.39x", or with the interval "1.39x [1.37, 1.41]".
[[nodiscard]] std::string format_ratio(double value);
[[nodiscard]] std::string format_ratio_ci(const Ratio& ratio);
// A ratio as a change: 1.5 [1.4, 1.6] -> "+50.0% [+40.0%, +60.0%]".
[[nodiscard]] std::string format_change_ci(const Ratio& ratio);
// 0.417 -> "41.7%", 0.000125 -> "0.013%": a share of a peak, with about three significant digits
// and "<0.001%" below that; "n/a" when not finite.
[[nodiscard]] std::string format_share(double fraction);
// As format_share, but below 0.001% two significant digits ("0.00055%") instead of "<0.001%": a
// divergence figure must show that it was measured, however small.
[[nodiscard]] std::string format_small_fraction(double fraction);
// "0.003", "<0.001", "n/a": a p-value as people read it.
[[nodiscard]] std::string format_p_value(double p);
// 50331648 -> "48.0 MiB".
[[nodiscard]] std::string format_bytes(std::int64_t bytes);
// 512 -> "512x512": a square GEMM's size, as the peaks note and explain name it.
[[nodiscard]] std::string format_square_size(std::int64_t n);
// 1.712e11 -> "171.2 GFLOP/s": four significant digits in FLOP/s, kFLOP/s ... PFLOP/s.
[[nodiscard]] std::string format_flop_rate(double flops_per_s);
// A count as people read it: 12 -> "12", 6512.4 -> "6.5k", 1.2e6 -> "1.2M".
[[nodiscard]] std::string format_count(double count);
// "%g": 0.01 -> "0.01", 1e-06 -> "1e-06"; with fewer significant digits 338814 -> "3.39e+05" (3).
[[nodiscard]] std::string format_general(double value, int significant_digits = 6);
// "%.*f" without the locale surprises of iostreams; "n/a" when not finite.
[[nodiscard]] std::string format_fixed(double value, int decimals);

// The number of terminal columns a UTF-8 string takes (one per code point: ampbench prints no
// wide characters).
[[nodiscard]] std::size_t display_width(std::string_view text);
// The text on one line (newlines and tabs become spaces), cut to at most max_width columns with
// "…" marking the cut.
[[nodiscard]] std::string one_line(std::string_view text, std::size_t max_width);

}  // namespace ampbench::reports::detail
