#pragma once
/// \file
/// The pattern-evocation analysis of one trace of the double spherical pendulum (003 §4): the
/// estimators of the critical rate γ_c, the frequency F of the reduced motion, and for each resonant
/// pattern the thesis shows, the rate eq. 4.1 predicts from our γ_c and F and the rate our pattern
/// score finds near it. The thesis's values are kept beside ours.

#include <string>
#include <vector>

#include "experiments/patterns/critical_rate.hpp"
#include "experiments/patterns/pattern_score.hpp"

namespace mechint::experiments {

/// A resonant pattern of 003 Figs. 5, 9, 13: its frame rate and the D_n symmetry the thesis saw.
struct ThesisResonance {
  double gamma;
  int symmetry;  ///< n of D_n
};

/// One start of 003 §4 with the thesis's critical rate, resonances and F (eq. 4.1 solved for F).
struct ThesisPattern {
  std::string start;  ///< pattern-1, pattern-2, pattern-3
  double gamma_c;
  std::vector<ThesisResonance> resonances;
  double f_min, f_max;  ///< range of the thesis's F values from eq. 4.1
  double window_s;      ///< how long the pattern lasts (003 §4.3: pattern III's fade after about 14 s)
};

/// Patterns I, II, III of 003 §4.1–4.3.
const std::vector<ThesisPattern>& thesis_patterns();

/// A mass closer than this to the z axis does not give its azimuth to the γ_c estimate (m).
constexpr double kAzimuthMinRadius = 0.1;
/// F is the largest spectral peak, in this band (rad/s), of the locked inertia m1 r1² + m2 r2²: a
/// function of the shape alone that weighs both masses (r1 alone misleads when mass 1 stays near
/// the axis, as in pattern II).
constexpr double kReducedBandMin = 0.3, kReducedBandMax = 6.0;
/// Half width of the rate search around a prediction (rad/s) and its number of rates.
constexpr double kSearchHalfWidth = 0.03;
constexpr int kSearchPoints = 121;

struct ResonanceResult {
  ThesisResonance thesis;
  int m = 0, n = 0;               ///< |γ − γ_c| = (m/n) F: the fraction nearest the thesis's rate
  double predicted = 0.0;         ///< γ_c ± (m/n) F from our γ_c and F
  analysis::RateSearchResult found;        ///< best D_symmetry score near `predicted`
  analysis::PatternScore score_at_thesis;  ///< our trace scored at the thesis's rate
  double f_implied = 0.0;         ///< eq. 4.1 solved for F at the found rate
};

struct PatternAnalysis {
  analysis::CriticalRateEstimates estimates;
  double gamma_c = 0.0;  ///< estimates.critical_rate(kAzimuthMinRadius)
  double f = 0.0;        ///< spectral peak of the locked inertia
  std::vector<ResonanceResult> resonances;
};

/// γ_c estimators and F of a trace window (no rate search).
PatternAnalysis estimate_rates(const analysis::TwoMassTrace& window, double jz);

/// estimate_rates plus, for each of the thesis's resonances, the prediction and the search.
PatternAnalysis analyse_pattern(const ThesisPattern& thesis, const analysis::TwoMassTrace& window, double jz);

}  // namespace mechint::experiments
