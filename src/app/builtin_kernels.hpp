#pragma once
/// \file
/// A built-in system on the kernel boundary: its problem's model turned into derivative kernels by
/// automatic differentiation (kernel/model_adapter.hpp), so that the methods that exist only there
/// (the Galerkin rules `vi-gauss4/6/8`, `vi-midpoint` with `compose=`, the chaos indicators of
/// `indicators=on`), its variational rules `vi-midpoint`, `vi-trapezoid`, `vi-first-order` and its
/// Runge–Kutta baselines run on it with the rows, recorder, checkpoints and stepping sessions of
/// app/kernel_methods.hpp. Its fixed-size rows (app/methods.hpp) keep running everything else.
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
    if constexpr (HasUnilateralConstraints<typename P::Model>)
      if (p.walls) return std::nullopt;
    KernelProblem k;
    k.model = kernel::ModelAdapter<typename P::Model>::kernels_for_runs(p.model);
    k.q0 = p.q0;
    k.qdot0 = p.initial_data;
    if (p.initial == InitialData::kMomentum) {
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

/// The variational rules of the command line (vi-midpoint, vi-trapezoid, vi-first-order) run on a
/// problem's kernels wherever its model's own coordinates are integrated and its type has no walls:
/// the same equations and arithmetic as their fixed-size rows (docs/architecture.md), which are then
/// not compiled for the problem (FixedRowsOf). A charted problem keeps its fixed-size rows.
template <class P>
constexpr bool kRulesOnKernels = !P::kCharted && SmoothProblem<P>;
/// The Runge–Kutta baselines (rk4, dopri5, rk78) likewise, on the forced Euler–Lagrange ODE of the
/// kernels (kernel/kernel_runge_kutta.hpp), wherever they apply: unconstrained problems.
template <class P>
constexpr bool kBaselinesOnKernels = kRulesOnKernels<P> && P::Model::kNumConstraints == 0;

/// The rows of the method table a problem's fixed-size runs choose from: those not on its kernels.
template <class P>
using FixedRowsOf = std::conditional_t<
    kBaselinesOnKernels<P>, MethodList<ImpactTrapezoidMethod, StormerVerletMethod, EnergyMomentumMethod, DaeMethod>,
    std::conditional_t<kRulesOnKernels<P>, MethodTableWithoutVariationalRows, MethodTable>>;

inline bool is_command_line_rule(const std::string& method) {
  return method == MidpointRule::kName || method == TrapezoidRule::kName || method == FirstOrderRule::kName;
}

inline bool is_runge_kutta_baseline(const std::string& method) {
  return method == RungeKutta4Method::kName || method == AdaptiveRungeKuttaMethod<RungeKuttaMethod::kDopri5>::kName ||
         method == AdaptiveRungeKuttaMethod<RungeKuttaMethod::kRk78>::kName;
}

/// Whether this run of `method` goes to the kernels.
template <class P>
bool on_kernels(const P& p, const std::string& method, const ParameterValues* options) {
  if (P::kCharted) return false;
  if constexpr (HasUnilateralConstraints<typename P::Model>)
    if (p.walls) return false;
  if constexpr (kRulesOnKernels<P>)
    if (is_command_line_rule(method)) return true;
  if constexpr (kBaselinesOnKernels<P>)
    if (is_runge_kutta_baseline(method)) return true;
  const auto only = kernel_only_methods(P::Model::kNumConstraints);
  if (std::find(only.begin(), only.end(), method) != only.end()) return true;
  return options && runs_on_kernels_only(P::Model::kNumConstraints, method, *options);
}

template <class P>
std::vector<ParameterSpec> method_options_with_kernels(const P& p, const std::string& method) {
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
