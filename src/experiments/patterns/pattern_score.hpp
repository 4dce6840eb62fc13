#pragma once
/// \file
/// How closed and how D_n-symmetric a two-mass trace looks in a frame rotating at γ, and the search
/// for the rate that maximises it near a prediction of 003 eq. 4.1.
///
/// Each mass's horizontal trace in the frame is rasterised on a polar grid (radial bins over the
/// trace's own radius range, `angle_bins` sectors; `angle_bins` is a multiple of every n asked for,
/// so a rotation by 2π/n and a reflection map cells onto cells exactly). With O the set of occupied
/// cells:
///  - closedness = 1 − |O| / |A|, A the cells of the annulus the trace spans: a curve retraced on
///    itself (a closed pattern) occupies few cells, a trace that winds on (no pattern) fills A;
///  - rotation_n = |O ∩ R_{2π/n} O| / |O|, the share of the trace invariant under the n-fold rotation;
///  - reflection = max over axes of |O ∩ S O| / |O|.
/// score_n = closedness · rotation_n · reflection, averaged over the two masses. An annulus-filling
/// trace is trivially symmetric; the closedness factor is what singles out patterns.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "mechint/analysis/rotating_frame.hpp"

namespace mechint::analysis {

struct PatternScore {
  double closedness = 0.0;
  double rotation = 0.0;
  double reflection = 0.0;
  double score = 0.0;
};

struct PatternGrid {
  int radial_bins = 48;
  int angle_bins = 360;  ///< a multiple of 2, 3, 4, 5, 6, 8, 9, 10, 12
};

namespace detail {

inline PatternScore score_one_mass(const std::vector<Eigen::Vector3d>& q, const std::vector<double>& t, double gamma,
                                   int n, PatternGrid grid) {
  const int nr = grid.radial_bins, na = grid.angle_bins;
  double r_min = 1e300, r_max = 0.0;
  for (const auto& x : q) {
    const double r = std::hypot(x[0], x[1]);
    r_min = std::min(r_min, r), r_max = std::max(r_max, r);
  }
  const double dr = std::max(r_max - r_min, 1e-12) / nr;
  std::vector<char> occ(static_cast<std::size_t>(nr) * na, 0);
  for (std::size_t i = 0; i < q.size(); ++i) {
    const Eigen::Vector3d x = rotate_about_z(q[i], -gamma * t[i]);
    const int ir = std::min(nr - 1, static_cast<int>((std::hypot(x[0], x[1]) - r_min) / dr));
    double a = std::atan2(x[1], x[0]);
    if (a < 0) a += 2.0 * M_PI;
    const int ia = std::min(na - 1, static_cast<int>(a / (2.0 * M_PI) * na));
    occ[static_cast<std::size_t>(ir) * na + ia] = 1;
  }
  // The radial bins span the trace's own radius range, so the grid is the annulus A it spans.
  std::vector<std::pair<int, int>> cells;
  for (int ir = 0; ir < nr; ++ir)
    for (int ia = 0; ia < na; ++ia)
      if (occ[static_cast<std::size_t>(ir) * na + ia]) cells.emplace_back(ir, ia);
  PatternScore s;
  if (cells.empty()) return s;
  const double occupied = static_cast<double>(cells.size());
  s.closedness = 1.0 - occupied / (static_cast<double>(nr) * na);
  auto at = [&](int ir, int ia) { return occ[static_cast<std::size_t>(ir) * na + ((ia % na) + na) % na]; };
  long rot = 0;
  const int shift = na / n;
  for (const auto& [ir, ia] : cells) rot += at(ir, ia + shift);
  s.rotation = static_cast<double>(rot) / occupied;
  // Reflection about the axis at angle j·π/na (j < na covers every axis): sector ia ↦ j − 1 − ia.
  long best = 0;
  for (int j = 0; j < na; ++j) {
    long c = 0;
    for (const auto& [ir, ia] : cells) c += at(ir, j - 1 - ia);
    best = std::max(best, c);
  }
  s.reflection = static_cast<double>(best) / occupied;
  s.score = s.closedness * s.rotation * s.reflection;
  return s;
}

}  // namespace detail

/// The D_n score of the trace seen from the frame rotating at γ (see the file comment).
inline PatternScore pattern_score(const TwoMassTrace& trace, double gamma, int n, PatternGrid grid = {}) {
  const PatternScore a = detail::score_one_mass(trace.q1, trace.t, gamma, n, grid);
  const PatternScore b = detail::score_one_mass(trace.q2, trace.t, gamma, n, grid);
  return {0.5 * (a.closedness + b.closedness), 0.5 * (a.rotation + b.rotation),
          0.5 * (a.reflection + b.reflection), 0.5 * (a.score + b.score)};
}

/// The rate in [center − half_width, center + half_width] with the best D_n score, scanned at
/// `points` rates; the middle of the best plateau is returned (the score is piecewise constant).
struct RateSearchResult {
  double gamma = 0.0;
  PatternScore score;
};

inline RateSearchResult search_pattern_rate(const TwoMassTrace& trace, double center, double half_width, int n,
                                            int points = 201, PatternGrid grid = {}) {
  std::vector<double> scores(points);
  double best = -1.0;
  for (int i = 0; i < points; ++i) {
    const double g = center - half_width + 2.0 * half_width * i / (points - 1);
    scores[i] = pattern_score(trace, g, n, grid).score;
    best = std::max(best, scores[i]);
  }
  // Longest run of maximal scores (within a relative 1e-12).
  int run_start = 0, run_len = 0, best_start = 0, best_len = 0;
  for (int i = 0; i < points; ++i) {
    if (scores[i] >= best * (1.0 - 1e-12)) {
      if (run_len == 0) run_start = i;
      if (++run_len > best_len) best_len = run_len, best_start = run_start;
    } else {
      run_len = 0;
    }
  }
  const double mid = best_start + 0.5 * (best_len - 1);
  RateSearchResult r;
  r.gamma = center - half_width + 2.0 * half_width * mid / (points - 1);
  r.score = pattern_score(trace, r.gamma, n, grid);
  return r;
}

}  // namespace mechint::analysis
