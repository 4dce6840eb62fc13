#pragma once
/// \file
/// Reference solution of a system with elastic impacts, independent of the variational machinery:
/// the hybrid automaton of 004 §II-C integrated by an adaptive Runge–Kutta method with event location.
///
/// Between impacts Hamilton's equations q̇ = H_p, ṗ = −H_q (004 eqs. 9–10, H from the Legendre
/// transform) are integrated by Dormand–Prince 5(4) with dense output (Boost.Odeint). After every
/// accepted step the guard φ_c(q) < 0 is checked; the impact time is the root of φ_c along the dense
/// output (TOMS 748, Boost.Math), and the exact elastic reset p⁺ = p⁻ + λ∇φ with
/// λ = −2 ∇φᵀH_p / (∇φᵀH_pp∇φ) (004 eqs. 14–15) restarts the integration there.

#include <array>
#include <limits>
#include <stdexcept>
#include <vector>

#include <boost/math/tools/toms748_solve.hpp>
#include <boost/numeric/odeint.hpp>

#include "mechint/model/hamiltonian.hpp"
#include "mechint/model/unilateral.hpp"

namespace mechint {

template <HasUnilateralConstraints M>
  requires(M::kNumConstraints == 0)
class HybridReference {
 public:
  static constexpr int n = M::kDim;
  static constexpr int m = M::kNumUnilateral;
  using State = std::array<double, 2 * n>;

  struct Event {
    double time = 0.0;
    int constraint = 0;
    VecD<n> q, p_before, p_after;
  };

  /// State (q, p) at one requested time.
  struct Sample {
    double time = 0.0;
    VecD<n> q, p;
  };

  HybridReference(M model, double tolerance = 1e-12) : model_(std::move(model)), tol_(tolerance) {}

  /// Integrates from (q0, p0) at t0 to t_end; returns the states at `times` (ascending, in
  /// [t0, t_end]) and fills `events`.
  std::vector<Sample> run(const VecD<n>& q0, const VecD<n>& p0, double t0, double t_end,
                          const std::vector<double>& times, std::vector<Event>& events) const {
    namespace odeint = boost::numeric::odeint;
    const auto rhs = [this](const State& x, State& dxdt, double) {
      VecD<n> q, p;
      unpack(x, q, p);
      const auto d = hamiltonian_derivatives(model_, q, p);
      for (int i = 0; i < n; ++i) {
        dxdt[i] = d.hp[i];
        dxdt[n + i] = -d.hq[i];
      }
    };
    auto stepper = odeint::make_dense_output(tol_, tol_, odeint::runge_kutta_dopri5<State>());
    stepper.initialize(pack(q0, p0), t0, 1e-3);
    std::vector<Sample> samples;
    std::size_t next = 0;
    int contact = -1;
    State x;
    auto emit_until = [&](double t_limit) {
      while (next < times.size() && times[next] <= t_limit) {
        stepper.calc_state(times[next], x);
        Sample s;
        s.time = times[next];
        unpack(x, s.q, s.p);
        samples.push_back(s);
        ++next;
      }
    };
    while (next < times.size() && times[next] <= t0) {  // samples at the start time
      Sample s;
      s.time = times[next++];
      s.q = q0;
      s.p = p0;
      samples.push_back(s);
    }
    for (long guard = 0; stepper.current_time() < t_end; ++guard) {
      if (guard > 100000000) throw std::runtime_error("hybrid reference: too many steps");
      const auto [ta, tb] = stepper.do_step(rhs);
      VecD<n> qb, pb;
      unpack(stepper.current_state(), qb, pb);
      const VecD<m> phi_b = unilateral_values(model_, qb);
      double t_event = std::numeric_limits<double>::infinity();
      int c_event = -1;
      for (int c = 0; c < m; ++c) {
        if (phi_b[c] >= 0.0) continue;
        const double te = crossing(stepper, ta, tb, c, c == contact, phi_b[c]);
        if (te < t_event) {
          t_event = te;
          c_event = c;
        }
      }
      if (c_event < 0) {
        emit_until(tb);
        contact = -1;
        continue;
      }
      emit_until(t_event);
      stepper.calc_state(t_event, x);
      Event e;
      e.time = t_event;
      e.constraint = c_event;
      unpack(x, e.q, e.p_before);
      const VecD<n> grad = unilateral_gradient(model_, c_event, e.q);
      const auto d = hamiltonian_derivatives(model_, e.q, e.p_before);
      const double lambda = -2.0 * grad.dot(d.hp) / grad.dot(d.hpp * grad);  // 004 eq. 14
      e.p_after = e.p_before + lambda * grad;                                 // 004 eq. 15
      events.push_back(e);
      stepper.initialize(pack(e.q, e.p_after), t_event, std::max(1e-8, stepper.current_time_step()));
      contact = c_event;
    }
    return samples;
  }

 private:
  template <class Stepper>
  double crossing(Stepper& stepper, double ta, double tb, int c, bool on_contact, double phi_b) const {
    State x;
    VecD<n> q, p;
    auto phi_at = [&](double t) {
      stepper.calc_state(t, x);
      unpack(x, q, p);
      return unilateral_values(model_, q)[c];
    };
    double fa;
    if (on_contact) {
      // φ_c = 0 at ta (a reset just happened): search φ_c/(t − ta), positive near ta.
      stepper.calc_state(ta, x);
      unpack(x, q, p);
      fa = unilateral_gradient(model_, c, q).dot(hamiltonian_derivatives(model_, q, p).hp);
    } else {
      fa = phi_at(ta);
    }
    if (!(fa > 0.0)) return ta;
    const auto f = [&](double t) {
      if (t <= ta) return fa;
      const double value = phi_at(t);
      return on_contact ? value / (t - ta) : value;
    };
    const double fb = on_contact ? phi_b / (tb - ta) : phi_b;
    boost::uintmax_t max_iter = 200;
    const auto tol = [](double a, double b) {
      return std::abs(b - a) <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(a));
    };
    const auto [lo, hi] = boost::math::tools::toms748_solve(f, ta, tb, fa, fb, tol, max_iter);
    (void)hi;
    return lo;
  }

  static State pack(const VecD<n>& q, const VecD<n>& p) {
    State x;
    for (int i = 0; i < n; ++i) {
      x[i] = q[i];
      x[n + i] = p[i];
    }
    return x;
  }
  static void unpack(const State& x, VecD<n>& q, VecD<n>& p) {
    for (int i = 0; i < n; ++i) {
      q[i] = x[i];
      p[i] = x[n + i];
    }
  }

  M model_;
  double tol_;
};

}  // namespace mechint
