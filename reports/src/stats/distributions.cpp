#include "stats/distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampbench::reports::detail {
namespace {

// The continued fraction of the incomplete beta function, evaluated by the modified Lentz method
// (Numerical Recipes, 6.4). It converges fast for x < (a + 1) / (a + b + 2); callers use the
// symmetry I_x(a, b) = 1 - I_{1-x}(b, a) to stay in that region.
double incomplete_beta_fraction(double x, double a, double b) {
  constexpr int kMaxIterations = 500;
  constexpr double kEpsilon = 1e-15;
  constexpr double kTiny = 1e-300;
  const auto guard = [](double value) { return std::fabs(value) < kTiny ? kTiny : value; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double fraction = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const double two_m = 2.0 * m;
    const double even = m * (b - m) * x / ((a - 1.0 + two_m) * (a + two_m));
    d = 1.0 / guard(1.0 + even * d);
    c = guard(1.0 + even / c);
    fraction *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + two_m) * (a + 1.0 + two_m));
    d = 1.0 / guard(1.0 + odd * d);
    c = guard(1.0 + odd / c);
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1.0) < kEpsilon) break;
  }
  return fraction;
}

}  // namespace

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

double regularized_incomplete_beta(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  // x^a (1-x)^b / B(a, b), in logarithms so large a, b do not overflow.
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * incomplete_beta_fraction(x, a, b) / a;
  return 1.0 - front * incomplete_beta_fraction(1.0 - x, b, a) / b;
}

double student_t_two_sided_p(double t, double degrees_of_freedom) {
  if (std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return 0.0;
  // P(|T| >= |t|) = I_{v / (v + t^2)}(v / 2, 1 / 2).
  const double v = degrees_of_freedom;
  return regularized_incomplete_beta(v / (v + t * t), v / 2.0, 0.5);
}

double student_t_critical_value(double two_sided_p, double degrees_of_freedom) {
  // p falls monotonically in t; 60 halvings of [0, 1e6] pin t far below any printed precision.
  double low = 0.0;
  double high = 1e6;
  for (int i = 0; i < 60; ++i) {
    const double middle = 0.5 * (low + high);
    (student_t_two_sided_p(middle, degrees_of_freedom) > two_sided_p ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

double f_upper_tail(double f, double numerator_degrees, double denominator_degrees) {
  if (std::isnan(f)) return std::numeric_limits<double>::quiet_NaN();
  if (f <= 0.0) return 1.0;
  // P(F >= f) = I_{d2 / (d2 + d1 f)}(d2 / 2, d1 / 2).
  const double d1 = numerator_degrees;
  const double d2 = denominator_degrees;
  return regularized_incomplete_beta(d2 / (d2 + d1 * f), d2 / 2.0, d1 / 2.0);
}

double binomial_half_pmf(std::int64_t k, std::int64_t n) {
  if (k < 0 || k > n) return 0.0;
  const auto real = [](std::int64_t value) { return static_cast<double>(value); };
  const double log_choose = std::lgamma(real(n) + 1.0) - std::lgamma(real(k) + 1.0) - std::lgamma(real(n - k) + 1.0);
  return std::exp(log_choose + real(n) * std::log(0.5));
}

double binomial_half_cdf(std::int64_t k, std::int64_t n) {
  if (k >= n) return 1.0;
  double sum = 0.0;
  for (std::int64_t i = 0; i <= k; ++i) sum += binomial_half_pmf(i, n);
  return std::min(sum, 1.0);
}

}  // namespace ampbench::reports::detail
