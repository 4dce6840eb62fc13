#pragma once
/// \file
/// A built-in system on the kernel boundary: its problem's model turned into derivative kernels by
/// automatic differentiation (kernel/model_adapter.hpp), so that the methods that exist only there
/// (the Galerkin rules `vi-gauss4/6/8`, `vi-midpoint` with `compose=`, the chaos indicators of
/// `indicators=on`) and every method of its table (kMethodsOnKernels below) run on it with the rows,
/// recorder, checkpoints and stepping sessions of app/kernel_methods.hpp. Its fixed-size rows
/// (app/methods.hpp) keep running charted problems and those with walls.
///
/// A problem is on the boundary when its model's own coordinates are integrated (no chart) and no
/// wall is active; initial momenta are turned into velocities by the inverse Legendre transform.

#include <optional>
#include <type_traits>

#include "app/kernel_methods.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/model/unilateral.hpp"

namespace mechint::app {

template <class P>
std::optional<KernelProblem> kernel_problem_of(const P& p) {
  if constexpr (P::kCharted) {
    (void)p;
    return std::nullopt;
  } else {
    KernelProblem k;
    bool walls = false;
    if constexpr (HasUnilateralConstraints<typename P::Model>) {
      walls = p.walls;
      k.impact_flows_without_walls = !p.walls;
    }
    k.model = kernel::ModelAdapter<typename P::Model>::kernels_for_runs(p.model, walls);
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
}

/// The problem's fixed-size methods with those only its kernels offer after its variational rows
/// (kernel_methods' order).
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

/// Every method of the command line runs on a problem's kernels wherever its model's own
/// coordinates are integrated (kMethodsOnKernels): the variational rules (vi-midpoint, vi-trapezoid,
/// vi-first-order) with the same equations and arithmetic as their fixed-size rows
/// (docs/architecture.md), the Runge–Kutta baselines on the forced Euler–Lagrange ODE of the kernels
/// (kernel/kernel_runge_kutta.hpp), energy-momentum where the model declares a constant mass matrix
/// (kernel/energy_momentum_integrator.hpp), dae (kernel/kernel_dae.hpp), and on a model with walls
/// the impact driver's flows (kernel/kernel_impact_driver.hpp, walls on or off). No fixed-size row
/// is then compiled for the problem: FixedRowsOf is empty. A charted problem keeps its fixed-size rows.
template <class P>
constexpr bool kMethodsOnKernels = !P::kCharted;

/// The rows of the method table a problem's fixed-size runs choose from: those not on its kernels.
template <class P>
using FixedRowsOf = std::conditional_t<kMethodsOnKernels<P>, MethodList<>, MethodTable>;

/// Whether this run of `method` goes to the kernels.
template <class P>
bool on_kernels(const P& p, const std::string& method, const ParameterValues* options) {
  if (P::kCharted) return false;
  if constexpr (kMethodsOnKernels<P>) {
    // A row that applies to P runs on the kernels; one that does not keeps the fixed-size path's
    // refusal ("does not apply here") before any option is read.
    const auto offered = offered_methods<P>();
    if (std::find(offered.begin(), offered.end(), method) != offered.end()) return true;
  }
  const auto only = kernel_only_methods(P::Model::kNumConstraints);
  if (std::find(only.begin(), only.end(), method) != only.end()) return true;
  return options && runs_on_kernels_only(P::Model::kNumConstraints, method, *options);
}

template <class P>
std::vector<ParameterSpec> method_options_with_kernels(const P& p, const std::string& method) {
  if constexpr (HasUnilateralConstraints<typename P::Model> && kMethodsOnKernels<P>) {
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
  if (on_kernels(p, method, nullptr)) return kernel_method_options(P::Model::kNumConstraints, method);
  std::vector<ParameterSpec> specs = method_options<P>(method);
  if (!P::kCharted && (!HasUnilateralConstraints<typename P::Model> || !p.walls))
    for (auto& extra : kernel_extra_options_of(P::Model::kNumConstraints, method)) {
      // An option the row has itself (compose of the impact rows' smooth flow) is listed once.
      const auto same = [&](const ParameterSpec& spec) { return spec.name == extra.name; };
      if (std::none_of(specs.begin(), specs.end(), same)) specs.push_back(std::move(extra));
    }
  return specs;
}

template <class P>
void run_problem_with_kernels(const P& p, const std::string& method, const ParameterValues& options,
                              const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls) {
  if (on_kernels(p, method, &options))
    return run_kernel_problem(*kernel_problem_of(p), method, options, schedule, out, controls);
  run_problem<P, FixedRowsOf<P>>(p, method, options, schedule, out, controls);
}

template <class P>
std::unique_ptr<SteppingSession> stepping_session_with_kernels(const P& p, const std::string& method,
                                                               const ParameterValues& options, double h,
                                                               const ControlSchedule& controls) {
  if (on_kernels(p, method, &options))
    return make_kernel_stepping_session(*kernel_problem_of(p), method, options, h, controls);
  return make_stepping_session<P, FixedRowsOf<P>>(p, method, options, h, controls);
}

}  // namespace mechint::app
