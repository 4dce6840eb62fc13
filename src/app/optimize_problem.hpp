#pragma once
/// \file
/// `mechint optimize` for one system's problem type: refuses a system optimal control does not apply
/// to (no controls, holonomic constraints, a chart) with one line, and solves the others on the
/// system's kernels (app/kernel_optimize.hpp: the DMOC program of kernel/kernel_dmoc.hpp, compiled
/// once for every system). Instantiated once per system by make_system_entry (app/system_entry.hpp).

#include <string>
#include <vector>

#include "app/kernel_optimize.hpp"
#include "app/optimal_control_spec.hpp"
#include "app/problem.hpp"
#include "kernel/model_adapter.hpp"

namespace mechint::app {

/// Solves `spec` on `problem` (the system's model, coordinate names) whose controls are named
/// `controls`. Throws InvalidInput for a system without controls, with constraints or in a chart, an
/// unknown name, empty bounds, a start or goal outside them; NumericalFailure when Ipopt fails.
template <class P>
OptimizeOutcome optimize_problem(const P& problem, const OptimalControlSpec& spec,
                                 const std::vector<std::string>& controls) {
  if constexpr (!P::kControlled) {
    (void)problem, (void)controls;
    spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
  } else if constexpr (P::kCharted || P::Model::kNumConstraints > 0) {
    (void)problem, (void)controls;
    spec.fail(spec.model_where, "optimal control of a system with holonomic constraints is not supported");
  } else {
    // The kernels of the system's runs: those of a model with controls include optimal control's
    // (kernel/model_adapter.txx).
    KernelProblem kernels;
    kernels.model = kernel::ModelAdapter<typename P::Model>::kernels_for_runs(problem.model);
    kernels.labels = problem.labels;
    return optimize_kernel_problem(kernels, spec, controls);
  }
}

}  // namespace mechint::app
