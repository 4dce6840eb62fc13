#pragma once
/// \file
/// `Simulation` for any discrete mechanical system stepped by the variational integrator, and the
/// method and start options every variational system shares.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/simulation.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/integrate/variational_integrator.hpp"

namespace mechint::app {

/// Column names of a system's output.
struct OutputLabels {
  std::vector<std::string> coordinates;  ///< one per configuration coordinate
  std::vector<std::string> momenta;      ///< one per symmetry generator, e.g. "Jz"
  /// If not empty: velocity columns written right after the coordinates (e.g. "vx", "vy").
  std::vector<std::string> velocities = {};
  /// Name and factor of the energy column; the three-body problem reports its Jacobi constant
  /// C = −2E this way.
  std::string energy_column = "energy";
  double energy_factor = 1.0;

  /// "t", coordinates, velocities, energy, momenta.
  std::vector<std::string> leading_columns() const;
};

/// Calls `model.validate_configuration(q, t)` if the model has one (it throws on a singular
/// configuration, e.g. a collision with a primary), so that no NaN reaches the output.
template <class M, class V>
void validate_configuration(const M& model, const V& q, double t) {
  if constexpr (requires { model.validate_configuration(q, t); }) model.validate_configuration(q, t);
}

/// How the integrator is started, from the options of `integrator_parameters()`.
struct StartSettings {
  enum class Kind { kVelocity, kMomentum, kSource };
  Kind kind = Kind::kVelocity;
  double fine_h = 1e-5;  ///< for kSource
  DelForm form = DelForm::kMomentum;
  NewtonOptions newton;
  double rtol = 1e-8;  ///< adaptive Runge–Kutta baselines
  double atol = 1e-10;
};

/// The options `form`, `start`, `fine_h`, `newton_tol` shared by all variational systems.
std::vector<ParameterSpec> integrator_parameters();
/// `rtol`, `atol` of the adaptive Runge–Kutta baselines (systems that offer them).
std::vector<ParameterSpec> runge_kutta_parameters();
/// Reads them back; `momentum_start` says whether the system's initial data are momenta.
StartSettings read_start_settings(const ParameterValues& values, bool momentum_start = false);

template <DiscreteMechanicalSystem S>
class VariationalSimulation final : public Simulation {
 public:
  static constexpr int n = S::kDim;
  static constexpr int k = S::kNumConstraints;
  using Model = typename VariationalIntegrator<S>::Model;

  VariationalSimulation(S system, OutputLabels labels, VecD<n> q0, VecD<n> start_data,
                        StartSettings start)
      : system_(std::move(system)),
        labels_(std::move(labels)),
        q0_(q0),
        start_data_(start_data),
        start_(start) {
    if (static_cast<int>(labels_.coordinates.size()) != n ||
        static_cast<int>(labels_.momenta.size()) != Model::kNumSymmetries ||
        !(labels_.velocities.empty() || static_cast<int>(labels_.velocities.size()) == n))
      throw std::logic_error("output labels do not match the model");
  }

  std::vector<std::string> columns() const override {
    std::vector<std::string> c = labels_.leading_columns();
    if constexpr (k > 0) {
      c.push_back("constraint_residual");
      for (int i = 1; i <= k; ++i) c.push_back("lambda" + std::to_string(i));
    }
    return c;
  }

  void run(const RunSettings& settings, const RowSink& sink) override {
    VariationalIntegrator<S> integ(system_, settings.h, start_.newton, start_.form);
    switch (start_.kind) {
      case StartSettings::Kind::kVelocity: integ.start_from_velocity(q0_, start_data_); break;
      case StartSettings::Kind::kMomentum: integ.start_from_momentum(q0_, start_data_); break;
      case StartSettings::Kind::kSource:
        integ.start_source_procedure(q0_, start_data_, start_.fine_h);
        break;
    }
    const long steps = steps_to_reach(settings.t_end, settings.h);
    const long stride = output_stride(settings.output_every, settings.h);
    std::vector<double> row;
    row.reserve(columns().size());
    auto emit = [&] {
      row.clear();
      row.push_back(integ.time());
      for (int i = 0; i < n; ++i) row.push_back(integ.q()[i]);
      const VecD<n> v = integ.velocity();
      if (!labels_.velocities.empty())
        for (int i = 0; i < n; ++i) row.push_back(v[i]);
      row.push_back(labels_.energy_factor * energy(integ.model(), integ.q(), v));
      for (int i = 0; i < Model::kNumSymmetries; ++i) row.push_back(integ.momentum(i));
      if constexpr (k > 0) {
        row.push_back(integ.constraint_residual().template lpNorm<Eigen::Infinity>());
        for (int i = 0; i < k; ++i) row.push_back(integ.lambda()[i]);
      }
      sink(row);
    };
    emit();
    while (integ.step_index() < steps) {
      integ.step();
      validate_configuration(integ.model(), integ.q(), integ.time());
      if (integ.step_index() % stride == 0 || integ.step_index() == steps) emit();
    }
  }

 private:
  S system_;
  OutputLabels labels_;
  VecD<n> q0_, start_data_;
  StartSettings start_;
};

/// Calls `f.template operator()<Rule>()` for the quadrature rule named by a `vi-*` method.
template <class F>
auto with_quadrature_rule(const std::string& method, F&& f) {
  if (method == "vi-midpoint") return f.template operator()<MidpointRule>();
  if (method == "vi-trapezoid") return f.template operator()<TrapezoidRule>();
  if (method == "vi-first-order") return f.template operator()<FirstOrderRule>();
  throw std::invalid_argument("unknown method '" + method +
                              "' (known: vi-midpoint, vi-trapezoid, vi-first-order)");
}

/// Variational simulation of `model` with the rule named by `method`.
template <LagrangianModel M>
std::unique_ptr<Simulation> make_variational_simulation(const M& model, OutputLabels labels,
                                                        const VecD<M::kDim>& q0,
                                                        const VecD<M::kDim>& start_data,
                                                        const StartSettings& start,
                                                        const std::string& method) {
  return with_quadrature_rule(method, [&]<class Rule>() -> std::unique_ptr<Simulation> {
    using S = DiscreteSystem<M, Rule>;
    return std::make_unique<VariationalSimulation<S>>(S(model), labels, q0, start_data, start);
  });
}

/// Variational simulation in the generalized coordinates of `chart` (000 §4.2).
template <LagrangianModel M, class Chart>
std::unique_ptr<Simulation> make_charted_variational_simulation(
    const M& model, const Chart& chart, OutputLabels labels, const VecD<Chart::kChartDim>& theta0,
    const VecD<Chart::kChartDim>& start_data, const StartSettings& start,
    const std::string& method) {
  return with_quadrature_rule(method, [&]<class Rule>() -> std::unique_ptr<Simulation> {
    using S = ChartedDiscreteSystem<M, Chart, Rule>;
    return std::make_unique<VariationalSimulation<S>>(S(model, chart), labels, theta0, start_data,
                                                      start);
  });
}

}  // namespace mechint::app
