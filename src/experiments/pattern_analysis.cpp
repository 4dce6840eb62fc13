#include "experiments/pattern_analysis.hpp"

#include <cmath>
#include <numeric>
#include <tuple>
#include <utility>

#include "mechint/analysis/reduced_coordinates.hpp"

namespace mechint::experiments {

const std::vector<ThesisPattern>& thesis_patterns() {
  // 003 §4.1 (Fig. 5; γ_4 = 1.0430 in the caption, 1.0403 in the text: the caption's value gives
  // the text's F = 2.2848), §4.2 (Fig. 9), §4.3 (Fig. 13, all D_2).
  static const std::vector<ThesisPattern> patterns = {
      {"pattern-1", 1.6142, {{0.4705, 2}, {0.8550, 3}, {1.0430, 4}, {2.7580, 2}}, 2.2776, 2.2876, 30.0},
      {"pattern-2", 1.253, {{0.4220, 3}, {0.6250, 4}, {2.0840, 3}, {2.5000, 2}}, 2.493, 2.512, 30.0},
      {"pattern-3", 1.4803, {{0.2520, 2}, {0.8645, 2}, {2.0880, 2}, {3.3110, 2}}, 1.2154, 1.2316, 14.0},
  };
  return patterns;
}

PatternAnalysis estimate_rates(const analysis::TwoMassTrace& window, double jz) {
  PatternAnalysis a;
  a.estimates = analysis::estimate_critical_rate(window, analysis::TwoMasses{}, jz);
  a.gamma_c = a.estimates.critical_rate(kAzimuthMinRadius);
  const analysis::ReducedTrace r = analysis::reduced_coordinates(window);
  const analysis::TwoMasses m;
  std::vector<double> inertia(r.t.size());
  for (std::size_t i = 0; i < r.t.size(); ++i) inertia[i] = m.m1 * r.r1[i] * r.r1[i] + m.m2 * r.r2[i] * r.r2[i];
  a.f = analysis::spectral_peak(r.t, inertia, kReducedBandMin, kReducedBandMax);
  return a;
}

namespace {

/// The fraction m/n (n ≤ 6, m ≤ 2n, in lowest terms) nearest x; ties go to the smaller n.
std::pair<int, int> nearest_fraction(double x) {
  std::pair<int, int> best{1, 1};
  double err = 1e300;
  for (int n = 1; n <= 6; ++n)
    for (int m = 1; m <= 2 * n; ++m) {
      if (std::gcd(m, n) != 1) continue;
      const double e = std::abs(x - static_cast<double>(m) / n);
      if (e < err - 1e-12) err = e, best = {m, n};
    }
  return best;
}

}  // namespace

PatternAnalysis analyse_pattern(const ThesisPattern& thesis, const analysis::TwoMassTrace& window, double jz) {
  PatternAnalysis a = estimate_rates(window, jz);
  for (const ThesisResonance& t : thesis.resonances) {
    ResonanceResult r;
    r.thesis = t;
    const double side = t.gamma < a.gamma_c ? -1.0 : 1.0;
    std::tie(r.m, r.n) = nearest_fraction(std::abs(t.gamma - a.gamma_c) / a.f);
    const double ratio = static_cast<double>(r.m) / r.n;
    r.predicted = a.gamma_c + side * ratio * a.f;  // 003 eq. 4.1
    r.found = analysis::search_pattern_rate(window, r.predicted, kSearchHalfWidth, t.symmetry, kSearchPoints);
    r.score_at_thesis = analysis::pattern_score(window, t.gamma, t.symmetry);
    r.f_implied = std::abs(r.found.gamma - a.gamma_c) / ratio;
    a.resonances.push_back(r);
  }
  return a;
}

}  // namespace mechint::experiments
