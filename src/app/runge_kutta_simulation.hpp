#pragma once
/// \file
/// `Simulation` for the Runge–Kutta baselines (rk4, dopri5, rk78) of any unconstrained model, with
/// the same columns as the variational one, and `make_simulation`, which sends a `vi-*` method to
/// the variational integrator and the others to the baselines.

#include <memory>
#include <stdexcept>
#include <string>

#include "app/variational_simulation.hpp"
#include "mechint/analysis/legendre.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/odeint_baselines.hpp"

namespace mechint::app {

template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
class RungeKuttaSimulation final : public Simulation {
 public:
  static constexpr int n = M::kDim;
  using Ode = EulerLagrangeOde<M>;

  RungeKuttaSimulation(M model, OutputLabels labels, VecD<n> q0, VecD<n> v0, RungeKuttaMethod method,
                       RungeKuttaTolerances tolerances)
      : ode_(std::move(model)), labels_(std::move(labels)), q0_(q0), v0_(v0), method_(method), tol_(tolerances) {}

  std::vector<std::string> columns() const override { return labels_.leading_columns(); }

  void run(const RunSettings& settings, const RowSink& sink) override {
    const long steps = steps_to_reach(settings.t_end, settings.h);
    const long stride = output_stride(settings.output_every, settings.h);
    // Output every `stride` steps of size h; a last, shorter interval is not produced: t_end is
    // rounded to whole output intervals.
    const long segments = steps / stride;
    const M& model = ode_.model();
    validate_configuration(model, q0_, 0.0);
    typename Ode::State x = Ode::pack(q0_, v0_);
    std::vector<double> row;
    integrate_runge_kutta(ode_, method_, x, 0.0, settings.h, stride * settings.h, segments, tol_,
                          [&](const typename Ode::State& state, double t) {
                            const VecD<n> q = Ode::position(state), v = Ode::velocity(state);
                            validate_configuration(model, q, t);
                            if (!q.allFinite() || !v.allFinite())
                              throw std::runtime_error("the state is not finite at t = " + format_number(t) +
                                                       "; reduce the step size or the tolerances");
                            row.clear();
                            row.push_back(t);
                            for (int i = 0; i < n; ++i) row.push_back(q[i]);
                            if (!labels_.velocities.empty())
                              for (int i = 0; i < n; ++i) row.push_back(v[i]);
                            row.push_back(labels_.energy_factor * energy(model, q, v));
                            const VecD<n> p = lagrangian_dv(model, q, v);
                            for (int i = 0; i < M::kNumSymmetries; ++i)
                              row.push_back(noether_momentum(model, i, q, p));
                            sink(row);
                          });
  }

 private:
  Ode ode_;
  OutputLabels labels_;
  VecD<n> q0_, v0_;
  RungeKuttaMethod method_;
  RungeKuttaTolerances tol_;
};

/// Method names an unconstrained variational system accepts.
inline std::vector<std::string> unconstrained_methods() {
  return {"vi-midpoint", "vi-trapezoid", "vi-first-order", "rk4", "dopri5", "rk78"};
}

/// The variational integrator for `vi-*` methods, a Runge–Kutta baseline otherwise.
template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
std::unique_ptr<Simulation> make_simulation(const M& model, const OutputLabels& labels, const VecD<M::kDim>& q0,
                                            const VecD<M::kDim>& v0, const StartSettings& start,
                                            const std::string& method) {
  if (method.rfind("vi-", 0) == 0)
    return make_variational_simulation(model, labels, q0, v0, start, method);
  return std::make_unique<RungeKuttaSimulation<M>>(model, labels, q0, v0, parse_runge_kutta_method(method),
                                                   RungeKuttaTolerances{start.rtol, start.atol});
}

}  // namespace mechint::app
