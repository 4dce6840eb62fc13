#pragma once
/// \file
/// Traces of two point masses (the double spherical pendulum's, or any other) and their view from a
/// frame rotating about z at a constant rate γ (003 eqs. 3.13–3.15): q̃_i(t) = R_z(−γ t) q_i(t).
///
/// The pattern tools (reduced_coordinates.hpp; src/experiments/patterns/critical_rate.hpp and
/// pattern_score.hpp, used by the pattern-evocation experiment only) work on this
/// plain form — sample times and positions — so they apply to the output of any integrator and can
/// be tested on synthetic traces with known rates.

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>

namespace mechint::analysis {

/// Sample times and positions of two masses.
struct TwoMassTrace {
  std::vector<double> t;
  std::vector<Eigen::Vector3d> q1, q2;

  std::size_t size() const { return t.size(); }
  void push_back(double time, const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
    t.push_back(time);
    q1.push_back(a);
    q2.push_back(b);
  }
  /// The samples with t in [t0, t1].
  TwoMassTrace window(double t0, double t1) const {
    TwoMassTrace w;
    for (std::size_t i = 0; i < size(); ++i)
      if (t[i] >= t0 - 1e-12 && t[i] <= t1 + 1e-12) w.push_back(t[i], q1[i], q2[i]);
    return w;
  }
};

/// R_z(angle) x.
inline Eigen::Vector3d rotate_about_z(const Eigen::Vector3d& x, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {c * x[0] - s * x[1], s * x[0] + c * x[1], x[2]};
}

/// The trace seen from the frame rotating at γ (003 eq. 3.15: q̃ = exp(−ω̂_γ t) q).
inline TwoMassTrace to_rotating_frame(const TwoMassTrace& trace, double gamma) {
  TwoMassTrace out;
  out.t = trace.t;
  out.q1.reserve(trace.size());
  out.q2.reserve(trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    out.q1.push_back(rotate_about_z(trace.q1[i], -gamma * trace.t[i]));
    out.q2.push_back(rotate_about_z(trace.q2[i], -gamma * trace.t[i]));
  }
  return out;
}

}  // namespace mechint::analysis
