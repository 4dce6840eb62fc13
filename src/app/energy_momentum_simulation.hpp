#pragma once
/// \file
/// `Simulation` for `--method energy-momentum` (003 §5; mechint/integrate/energy_momentum.hpp) of any
/// model with a constant mass matrix, a potential and quadratic constraints. Columns as the
/// variational simulation: coordinates, energy, momenta, constraint_residual, lambda1..k (here the
/// continuous multipliers λ of 003 eq. 5.7, not per-step impulses).

#include <memory>
#include <stdexcept>
#include <string>

#include "app/variational_simulation.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/energy_momentum.hpp"

namespace mechint::app {

template <ConstantMassModel M>
class EnergyMomentumSimulation final : public Simulation {
 public:
  static constexpr int n = M::kDim;
  static constexpr int k = M::kNumConstraints;

  EnergyMomentumSimulation(M model, OutputLabels labels, VecD<n> q0, VecD<n> v0, NewtonOptions newton)
      : model_(std::move(model)), labels_(std::move(labels)), q0_(q0), v0_(v0), newton_(newton) {}

  std::vector<std::string> columns() const override {
    std::vector<std::string> c = labels_.leading_columns();
    c.push_back("constraint_residual");
    for (int i = 1; i <= k; ++i) c.push_back("lambda" + std::to_string(i));
    return c;
  }

  void run(const RunSettings& settings, const RowSink& sink) override {
    const double off = model_constraints<M, double>(model_, q0_).template lpNorm<Eigen::Infinity>();
    if (off > 1e-9)
      throw InvalidStart("start is off the constraint manifold: |g(q0)| = " + format_number(off) + " > 1e-9");
    EnergyMomentumIntegrator<M> em(model_, settings.h, newton_);
    em.start_from_velocity(q0_, v0_);
    const long steps = steps_to_reach(settings.t_end, settings.h);
    const long stride = output_stride(settings.output_every, settings.h);
    std::vector<double> row;
    auto emit = [&] {
      row.clear();
      row.push_back(em.time());
      for (int i = 0; i < n; ++i) row.push_back(em.q()[i]);
      if (!labels_.velocities.empty()) {
        const VecD<n> v = em.velocity();
        for (int i = 0; i < n; ++i) row.push_back(v[i]);
      }
      row.push_back(labels_.energy_factor * em.energy());
      for (int i = 0; i < M::kNumSymmetries; ++i) row.push_back(em.momentum(i));
      row.push_back(em.constraint_residual().template lpNorm<Eigen::Infinity>());
      for (int i = 0; i < k; ++i) row.push_back(em.lambda()[i]);
      sink(row);
    };
    emit();
    while (em.step_index() < steps) {
      em.step();
      if (em.step_index() % stride == 0 || em.step_index() == steps) emit();
    }
  }

 private:
  M model_;
  OutputLabels labels_;
  VecD<n> q0_, v0_;
  NewtonOptions newton_;
};

}  // namespace mechint::app
