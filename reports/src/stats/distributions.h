// The few probability distributions the tests in stats.h need, implemented here so that reports
// stays free of dependencies: the standard normal, Student's t and Snedecor's F (through the
// regularized incomplete beta function) and the binomial with p = 1/2.
#pragma once

#include <cstdint>

namespace ampbench::reports::detail {

// P(Z > z) for a standard normal Z.
[[nodiscard]] double normal_upper_tail(double z);

// The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1.
[[nodiscard]] double regularized_incomplete_beta(double x, double a, double b);

// P(|T| >= |t|) for Student's t with the given degrees of freedom (> 0).
[[nodiscard]] double student_t_two_sided_p(double t, double degrees_of_freedom);

// The t with P(|T| >= t) = two_sided_p for Student's t (0 < two_sided_p < 1, degrees of freedom
// > 0), found by bisection on student_t_two_sided_p: e.g. 2.776 for p 0.05 and 4 degrees.
[[nodiscard]] double student_t_critical_value(double two_sided_p, double degrees_of_freedom);

// P(F >= f) for Snedecor's F with the given numerator and denominator degrees of freedom (> 0).
[[nodiscard]] double f_upper_tail(double f, double numerator_degrees, double denominator_degrees);

// P(B = k) and P(B <= k) for B ~ Binomial(n, 1/2).
[[nodiscard]] double binomial_half_pmf(std::int64_t k, std::int64_t n);
[[nodiscard]] double binomial_half_cdf(std::int64_t k, std::int64_t n);

}  // namespace ampbench::reports::detail
