#pragma once
/// \file
/// A built-in system on the kernel boundary: its problem's model turned into derivative kernels by
/// automatic differentiation (kernel/model_adapter.hpp), and every method of the command line run
/// there with the rows, recorder, checkpoints and stepping sessions of app/kernel_methods.hpp: the
/// variational rules with the same equations and arithmetic as the templated library's
/// (docs/architecture.md), the Galerkin rules and compositions that exist only there, the
/// Runge–Kutta baselines on the forced Euler–Lagrange ODE of the kernels, energy-momentum where the
/// model declares a constant mass matrix, dae, and on a model with walls the impact driver's flows
/// (walls on or off). A problem in a chart (000 §4.2) runs on the kernels of its model in chart
/// coordinates, whose discrete Lagrangians are the restricted ones (000 eq. 4.9). No fixed-size
/// integrator is compiled for a system.
///
/// Initial momenta are turned into velocities by the inverse Legendre transform (the impact driver
/// starts from the momenta themselves).

#include <algorithm>
#include <string>
#include <vector>

#include "app/kernel_methods.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/model/unilateral.hpp"

namespace mechint::app {

/// The model a problem's methods integrate: its own, or in chart coordinates.
template <class P>
auto integrated_model(const P& p) {
  if constexpr (P::kCharted)
    return ChartModel<typename P::Model, typename P::ChartType>(p.model, p.chart);
  else
    return p.model;
}

template <class P>
KernelProblem kernel_problem_of(const P& p) {
  using Integrated = decltype(integrated_model(p));
  KernelProblem k;
  bool walls = false;
  if constexpr (HasUnilateralConstraints<typename P::Model>) {
    walls = p.walls;
    k.impact_flows_without_walls = !p.walls;
  }
  k.model = kernel::ModelAdapter<Integrated>::kernels_for_runs(integrated_model(p), walls);
  if constexpr (P::kCharted) {
    if constexpr (requires(Eigen::Matrix<double, P::kDim, 1>& a) { p.chart.wrap_periodic(a, a); }) {
      k.wrap_periodic = [chart = p.chart](Eigen::VectorXd& previous, Eigen::VectorXd& current) {
        Eigen::Matrix<double, P::kDim, 1> a = previous, b = current;  // on the stack: a step allocates nothing
        chart.wrap_periodic(a, b);
        previous = a;
        current = b;
      };
    }
  }
  k.q0 = p.q0;
  k.qdot0 = p.initial_data;
  if (p.initial == InitialData::kMomentum) {
    k.p0 = p.initial_data;
    if (!p.q0.allFinite() || !p.initial_data.allFinite()) throw InvalidStart("the initial values are not finite");
    k.qdot0 = kernel::tangent_velocity(*k.model, p.q0, p.initial_data, Eigen::VectorXd::Zero(P::kDim));
    if (!k.qdot0.allFinite())
      throw InvalidStart("no velocity has the initial momenta (the inverse Legendre transform failed)");
  }
  k.labels = p.labels;
  if constexpr (P::kControlled) k.controls = p.controls;
  return k;
}

/// The methods of the problem (app/methods.hpp's table, whose rows state what each applies to)
/// with those only its kernels offer after its variational rows (kernel_methods' order): the
/// Galerkin rules, for a problem in its model's own coordinates and without active walls.
template <class P>
std::vector<std::string> methods_with_kernels(const P& p) {
  std::vector<std::string> names = offered_methods<P>();
  if (!P::kCharted && (!HasUnilateralConstraints<typename P::Model> || !p.walls)) {
    auto at = names.begin();
    for (auto it = names.begin(); it != names.end(); ++it)
      if (it->starts_with("vi-")) at = it + 1;
    const auto only = kernel_only_methods(P::Model::kNumConstraints);
    names.insert(at, only.begin(), only.end());
  }
  return names;
}

/// Whether `method` applies to the problem (with these options, when given: a second-order rule
/// with compose, indicators or adapt runs as its Galerkin form).
template <class P>
bool offers(const P& p, const std::string& method, const ParameterValues* options) {
  const auto offered = offered_methods<P>();
  if (std::find(offered.begin(), offered.end(), method) != offered.end()) return true;
  if constexpr (P::kCharted) return false;
  if constexpr (HasUnilateralConstraints<typename P::Model>)
    if (p.walls) return false;
  (void)p;
  const auto only = kernel_only_methods(P::Model::kNumConstraints);
  if (std::find(only.begin(), only.end(), method) != only.end()) return true;
  return options && runs_on_kernels_only(P::Model::kNumConstraints, method, *options);
}

template <class P>
std::vector<ParameterSpec> method_options_with_kernels(const P& p, const std::string& method) {
  // A problem in a chart: the rows' own options (no composition: its rules' discrete Lagrangians
  // are the restricted ones, not quadratures that a Galerkin form could take over).
  if constexpr (P::kCharted) return method_options<P>(method);
  if constexpr (HasUnilateralConstraints<typename P::Model>) {
    // The impact rows' options, and without walls the smooth flows' extras (compose, indicators of
    // vi-trapezoid, which then runs as the smooth rule); with walls only the impact rows apply.
    const auto impact = kernel_impact_methods();
    if (p.walls || std::find(impact.begin(), impact.end(), method) != impact.end()) {
      std::vector<ParameterSpec> specs = kernel_impact_method_options(method);
      if (!p.walls)
        for (auto& extra : kernel_extra_options_of(P::Model::kNumConstraints, method)) {
          const auto same = [&](const ParameterSpec& spec) { return spec.name == extra.name; };
          if (std::none_of(specs.begin(), specs.end(), same)) specs.push_back(std::move(extra));
        }
      return specs;
    }
  }
  if (!offers(p, method, nullptr)) throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  return kernel_method_options(P::Model::kNumConstraints, method);
}

template <class P>
void run_problem_with_kernels(const P& p, const std::string& method, const ParameterValues& options,
                              const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls) {
  if (!offers(p, method, &options)) throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  run_kernel_problem(kernel_problem_of(p), method, options, schedule, out, controls);
}

template <class P>
std::unique_ptr<SteppingSession> stepping_session_with_kernels(const P& p, const std::string& method,
                                                               const ParameterValues& options, double h,
                                                               const ControlSchedule& controls) {
  if (!offers(p, method, &options)) throw InvalidInput("method " + quote_for_message(method) + " does not apply here");
  return make_kernel_stepping_session(kernel_problem_of(p), method, options, h, controls);
}

}  // namespace mechint::app
