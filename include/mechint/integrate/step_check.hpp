#pragma once
/// \file
/// Step confirmation of the implicit integrators (docs/trustworthy-runs.md, "Step acceptance").
///
/// Newton can converge to a root of a step's equations that is not the continuation of the motion:
/// at a step far beyond what resolves the motion the equations have other solutions. A solution that
/// continues the motion is the limit of the solutions at smaller steps, so a step is confirmed by two
/// steps of h/2 from the same state and rejected (`RejectedStep`, exit 3) when these do not converge
/// or end farther from the step of h than `max_ratio` step lengths of the trusted motion (see
/// `motion_scale`). The variational, Galerkin and energy–momentum integrators
/// (src/kernel/) confirm their steps this way, on the
/// steps `should_confirm` selects.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/core/linear_algebra.hpp"

namespace mechint {

/// When and how strictly an implicit integrator confirms its steps (see the file comment).
struct StepCheckOptions {
  bool enabled = true;
  /// Reject when two steps of h/2 end farther from the step of h than this many step lengths of the
  /// motion (measured on resolved runs: ≤ 0.2 for the second-order rules, ≤ 1.0 for the first-order
  /// rule on a 10-link chain at h = 0.05; docs/trustworthy-runs.md).
  double max_ratio = 2.0;
  /// Confirm steps 1, 2, 4, … below this, then every this many steps.
  long every = 64;
  /// Also confirm a step whose Newton iteration contracted by less than this at its first update …
  double trigger_contraction = 0.5;
  /// … or whose displacement grew by more than this factor over the previous step's, or whose
  /// energy balance is off by more than `trigger_energy` (see energy_balance_ratio).
  double trigger_growth = 2.0;
  double trigger_energy = 0.25;
  /// Reject a step whose energy balance is off by more than this (see energy_balance_ratio), unless
  /// the previous midpoint is no scale for it: its size below a thousandth of this step's (a motion
  /// starting from rest at the zero of its potential, where every size is ~0 at first).
  double reject_energy = 1.0;
  /// The coordinates that are angles (2π-periodic: `OutputLabels::periodic`); empty: none. A step
  /// that turns one of them on which L depends by more than half a turn is rejected (see
  /// turns_more_than_half).
  std::vector<bool> angles;
};

/// Whether a step that changes coordinate i by `change` turns an angle by more than half a turn. Such
/// a step does not resolve the motion if L depends on that angle (∂L/∂θ ≠ 0 at its midpoint, which
/// the integrator checks then): its discrete Lagrangian samples L's 2π-periodic dependence on θ at
/// one point of more than half a period, so its equations have aliased roots that no step size
/// below resolves — and they are roots all the same, balanced in energy and confirmed by half steps.
/// A driven acrobot at h = 0.05 settled on steps that turn its elbow by three turns each: a spin
/// with an energy of 3e4–9e4, balanced from step to step, where the same forcing resolved at
/// h = 0.001 stays below a few thousand (docs/trustworthy-runs.md). A cyclic angle (∂L/∂θ = 0: a free
/// rotor, the azimuth of the spherical pendulum) is exact at any turn and is not judged.
inline bool turns_more_than_half(const StepCheckOptions& check, int i, double change) {
  return i < static_cast<int>(check.angles.size()) && check.angles[static_cast<std::size_t>(i)] &&
         !(std::abs(change) <= 3.141592653589793);
}


/// How far a step's energy is from balancing, relative to the energy's size: the energy at its
/// midpoint, E_{k+½}, minus the previous step's, E_{k−½}, minus the work the forces did between them
/// (`work`), over the size of the energy's terms at the previous midpoint (`previous_size`) plus
/// |work|. 0 for the first step (nothing to compare with), +inf for a non-finite energy. A resolved
/// step gives O(h²); a step that jumps to another root of its equations, or does not resolve the
/// motion at all, gives O(1) or more — while its displacement may look ordinary and two half steps
/// from the same state may follow it (a driven acrobot at h = 0.05, docs/trustworthy-runs.md).
inline double energy_balance_ratio(double energy, double previous_energy, double previous_size, double work) {
  if (!std::isfinite(previous_energy)) return 0.0;
  const double off = std::abs(energy - previous_energy - work);
  if (!std::isfinite(off)) return std::numeric_limits<double>::infinity();
  // Round-off of the energies themselves (a system at rest with no potential has size 0).
  if (off <= 1e-12 * (std::abs(energy) + std::abs(previous_energy) + std::abs(work))) return 0.0;
  const double size = previous_size + std::abs(work);
  return off == 0.0 ? 0.0 : off / size;
}

/// A step whose Newton solution is not the continuation of the motion (exit 3).
class RejectedStep : public NumericalFailure {
 public:
  using NumericalFailure::NumericalFailure;
};

/// The RejectedStep of step `step` (ending at t) that turned angle coordinate i (from 0) by `change`.
[[noreturn]] inline void reject_turn(long step, double t, int i, double change) {
  throw RejectedStep("step " + std::to_string(step) + " (t = " + format_number(t) + ") rejected: it turns coordinate " +
                     std::to_string(i + 1) + ", an angle the Lagrangian depends on, by " + format_number(change, 3) +
                     " rad, more than half a turn: the step cannot resolve the motion (its equations have aliased "
                     "roots there); reduce the step size");
}

/// The energy balance an integrator keeps from step to step (see energy_balance_ratio): the energy
/// at the previous step's midpoint, the size of its terms and the forces' work over that step.
class EnergyBalance {
 public:
  /// Records this step's midpoint energy, the size of its terms and the forces' work over it, and
  /// returns how far the energy is from balancing since the previous midpoint (half of each step's
  /// work between them). Rejection needs a scale: a previous midpoint whose terms are ~0 next to
  /// this one's (a motion from rest at the zero of its potential) only asks for a confirmation.
  double update(double energy, double size, double work, const StepCheckOptions& check) {
    const double ratio = update_with_work_between(energy, size, 0.5 * (work_ + work), check);
    work_ = work;
    return ratio;
  }

  /// As `update`, given the forces' work between the previous midpoint and this one whole: a
  /// composition keeps one balance per sub-step, each against the same sub-step of the previous
  /// step, and the work between those is that of a whole step's sub-steps.
  double update_with_work_between(double energy, double size, double work_between, const StepCheckOptions& check) {
    double ratio = energy_balance_ratio(energy, energy_, size_, work_between);
    if (size_ < 1e-3 * size) ratio = std::min(ratio, 0.5 * (check.trigger_energy + check.reject_energy));
    last_ = {energy - energy_, work_between, size_};
    energy_ = energy, size_ = size;
    return ratio;
  }

  /// Throws the RejectedStep of step `step` (ending at t) whose last update returned `ratio`.
  [[noreturn]] void reject(long step, double t, double ratio) const {
    throw RejectedStep("step " + std::to_string(step) + " (t = " + format_number(t) + ") rejected: its energy changed by " +
                       format_number(last_.change, 3) + " while the forces did " + format_number(last_.work, 3) +
                       " of work, " + format_number(ratio, 3) + " times the size of the energy's terms (" +
                       format_number(last_.size, 3) + "): the step does not resolve the motion; reduce the step size");
  }

  /// Nothing to compare the next step with (a start).
  void reset() { *this = EnergyBalance(); }

  /// The previous midpoint's figures are state; the last step's are only for a message.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(energy_), a(size_), a(work_);
  }

 private:
  double energy_ = std::numeric_limits<double>::quiet_NaN(), size_ = 0.0, work_ = 0.0;
  struct {
    double change = 0.0, work = 0.0, size = 0.0;
  } last_;
};

/// The verdict on a confirmation of step `step` (ending at t): throws RejectedStep when its two
/// half steps did not converge, or end `ratio` step lengths of the motion (motion_scale) from it,
/// more than `max_ratio`. The message is built only for a rejection: a confirmed step allocates
/// nothing.
inline void judge_confirmation(bool converged, double ratio, double max_ratio, long step, double t) {
  if (converged && ratio <= max_ratio) return;
  const std::string where = "step " + std::to_string(step) + " (t = " + format_number(t) + ") rejected: ";
  if (!converged)
    throw RejectedStep(where + "Newton converged, but two steps of h/2 from the same state do not, so its solution "
                               "is not the continuation of the motion; reduce the step size");
  throw RejectedStep(where + "one step of h and two of h/2 from the same state end " + format_number(ratio, 3) +
                     " step lengths apart (check_ratio " + format_number(max_ratio) +
                     "): Newton's solution is not the continuation of the motion; reduce the step size");
}

/// Steps 1, 2, 4, … below `every`, then every `every` steps, and the suspicious ones: Newton's
/// first contraction above `trigger_contraction`, or a displacement that grew more than
/// `trigger_growth` times over the previous step's. `next_step` is the index of the step being taken.
inline bool should_confirm(const StepCheckOptions& check, long next_step, double first_contraction,
                           double displacement, double previous_displacement) {
  const long s = next_step;
  if (s % check.every == 0 || (s < check.every && (s & (s - 1)) == 0)) return true;
  if (first_contraction > check.trigger_contraction) return true;
  return displacement > check.trigger_growth * previous_displacement;
}

/// The length of a step of the trusted motion from q_k: the previous step, the two half steps
/// (doubled to a step's length) and their second difference (×4: h²·q̈, the motion of a step from
/// rest or at a turning point) — not the candidate step, whose own length a far spurious root would
/// inflate — and at least ten Newton tolerances, below which solutions are not resolved.
template <int n>
double motion_scale(const VecD<n>& q, double previous_step, const VecD<n>& q_half, const VecD<n>& q_two,
                    double step_tolerance) {
  // On expressions: no temporary vector (a runtime-sized one would allocate).
  const auto norm = [](const auto& x) { return x.template lpNorm<Eigen::Infinity>(); };
  return std::max({previous_step, 2.0 * norm(q_half - q), 2.0 * norm(q_two - q_half),
                   4.0 * norm(q_two - 2.0 * q_half + q), 10.0 * step_tolerance * (1.0 + norm(q))});
}

}  // namespace mechint
