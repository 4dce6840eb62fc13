#pragma once
/// \file
/// The three impact laws of 004 §III-C–E, their options, and the scalar root solve for the impulse.
///
/// All three complete p⁺ = p⁻ + λ∇φ(q_i) (004 eq. 23) by one scalar equation F(λ) = 0:
///
/// * DTEC (004 eq. 25, the variational collision integrator of Fetecau et al.): the discrete energy
///   −D3 Ld of the partial step (q_j → q_i, αh) equals that of the rest step (q_i → q_{j+1}, (1−α)h)
///   taken from (q_i, p⁺).
/// * CTEC (004 eq. 26): H(q_i, p⁻) = H(q_i, p⁺).
/// * MHC (004 eq. 28 with windowed stable values, §III-E): the stable value of the integrator's own
///   truncated modified Hamiltonian H̃ over a window of grid points before the impact equals its
///   stable value over a window after it (the rest step and the following full steps, simulated
///   from (q_i, p⁺) for each trial λ). The stable value of a window is the median of H̃ over its
///   grid points: a spike of the higher-order terms (004 Fig. 1 right) that covers less than half
///   of the window does not move it. A window with no grid point (an impact right after another,
///   or a second impact in the rest step) falls back to H̃ at the impact point itself (eq. 28).
///
/// Every F has the trivial root λ = 0 nearby (no collision, 004 footnotes 2 and 4); the physical
/// root lies near the elastic impulse λ_e = −2 ∇φ·H_p / (∇φᵀ H_pp ∇φ) (004 eq. 14), beyond the
/// minimum of the energy at λ_e/2. `solve_impulse` brackets the first sign change of F above that
/// minimum and refines it with TOMS 748 (Boost.Math).

#include <algorithm>
#include <limits>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/math/tools/toms748_solve.hpp>

#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint {

enum class ImpactLaw { kDtec, kCtec, kMhc };

inline std::string_view impact_law_name(ImpactLaw law) {
  switch (law) {
    case ImpactLaw::kDtec: return "dtec";
    case ImpactLaw::kCtec: return "ctec";
    case ImpactLaw::kMhc: return "mhc";
  }
  return "?";
}

/// "dtec", "ctec" or "mhc"; throws std::invalid_argument naming the known laws.
inline ImpactLaw parse_impact_law(std::string_view name) {
  if (name == "dtec") return ImpactLaw::kDtec;
  if (name == "ctec") return ImpactLaw::kCtec;
  if (name == "mhc") return ImpactLaw::kMhc;
  throw InvalidInput("unknown impact law " + quote_for_message(name) + " (known: dtec, ctec, mhc)");
}

/// Options of the impact driver.
struct ImpactOptions {
  ImpactLaw law = ImpactLaw::kCtec;
  /// MHC windows, in seconds of simulated time (rounded to a whole number of steps, at least one).
  /// The defaults cover several spikes' widths of the double pendulum of 004 (docs/impacts.md):
  /// the spikes of H̃ last ≈ 0.1 s, so a median over 0.5 s is not moved by one spike.
  double window_before = 0.5;
  double window_after = 0.5;
  /// H̃ used by MHC; empty: the one of the integrator (the only consistent pairing, see
  /// analysis/modified_hamiltonian.hpp). Setting the other reproduces a mismatched pairing.
  bool override_modified_hamiltonian = false;
  ModifiedHamiltonianKind modified_hamiltonian = ModifiedHamiltonianKind::kStormerVerlet;
  /// More impacts than this within one step is reported as chattering (an error).
  int max_impacts_per_step = 20;
  /// false: the unilateral constraints are ignored (smooth runs of a model with a wall).
  bool enabled = true;
  /// true: every impact is kept in `ImpactDriver::impacts()` (the log grows with the run and its
  /// growth allocates; reserve it for long runs). false: only the count and the last impact are
  /// kept, and the memory of a run does not depend on its length (the command line).
  bool record_impacts = true;
  /// The coefficients γ_1..γ_m of a symmetric composition of the smooth flow (`compose=`, DESIGN
  /// §10): each step is m steps γ_i h of the flow; empty, the flow's own step. Only with impacts
  /// off (`enabled = false`): the impact step (partial steps αh and (1−α)h around the jump of p) is
  /// not symmetric, so a composition through it would not reach its order.
  std::vector<double> composition;
};

/// An impact could not be resolved (no root of the impact law, chattering).
class ImpactFailure : public NumericalFailure {
 public:
  using NumericalFailure::NumericalFailure;
};

/// The physical root of F near λ_e (see the file comment). `what` names the law for messages.
template <class F>
double solve_impulse(F&& f, double lambda_elastic, double time, std::string_view what) {
  // λ_e > 0 when the state approaches the wall at the contact. Zero or negative: the step crossed
  // the wall while the velocity there is tangent to it or leaving it (a grazing contact at this
  // step size), and the bracket below would be empty (it used to reach Boost's root finder
  // reversed and end the run as an internal error).
  if (!(lambda_elastic > 0.0) || !std::isfinite(lambda_elastic))
    throw ImpactFailure("impact at t = " + format_number(time) +
                        ": no approach velocity towards the wall at the contact (grazing contact); reduce the step size");
  // Lower end: the minimum of the energy along λ sits near λ_e/2; look around it for F < 0.
  double lo = 0.5 * lambda_elastic, flo = f(lo);
  for (int i = 1; i <= 29 && !(flo < 0.0); ++i) {
    lo = 0.05 * i * lambda_elastic;
    flo = f(lo);
  }
  // Upper end: F > 0, doubling the distance from λ_e/2 (DTEC at large steps lands far from λ_e).
  double hi = std::max(lo, lambda_elastic) + 0.5 * lambda_elastic, fhi = f(hi);
  for (int i = 0; i < 40 && flo < 0.0 && fhi <= 0.0; ++i) {
    lo = hi, flo = fhi;
    hi += (hi - 0.5 * lambda_elastic);
    fhi = f(hi);
  }
  if (!(flo < 0.0) || !(fhi > 0.0) || !std::isfinite(flo) || !std::isfinite(fhi))
    throw ImpactFailure("impact at t = " + format_number(time) + ": the " + std::string(what) +
                        " impact law has no solution near the elastic impulse; reduce the step size");
  if (fhi == 0.0) return hi;
  boost::uintmax_t max_iter = 200;
  const auto tol = [](double a, double b) {
    return std::abs(b - a) <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(std::abs(a), std::abs(b));
  };
  const auto [a, b] = boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, tol, max_iter);
  return std::abs(f(a)) <= std::abs(f(b)) ? a : b;
}

/// Median of `values` (reordered in place); the mean of the two middle values for an even count.
inline double median_in_place(std::vector<double>& values) {
  const std::size_t m = values.size();
  if (m == 0) throw std::logic_error("median of an empty window");
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(m / 2);
  std::nth_element(values.begin(), mid, values.end());
  const double upper = *mid;
  if (m % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), mid));
}

}  // namespace mechint
