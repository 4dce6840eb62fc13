#pragma once
/// \file
/// `mechint optimize` on a kernel model (DESIGN §7, docs/optimal-control.md): gives the names of an
/// optimal control problem file (app/optimal_control_spec.hpp) their meaning on the model's
/// coordinates and controls, builds the DMOC program of the chosen rule (kernel/kernel_dmoc.hpp),
/// solves it with Ipopt and re-simulates the optimal controls with the forced VI of the same rule
/// (kernel/kernel_variational_integrator.hpp). Compiled once: every system — built-in, model file —
/// reaches it with its kernels (app/optimize_problem.hpp, model_file/model_file_system.cpp).

#include <string>
#include <vector>

#include "app/kernel_methods.hpp"
#include "app/optimal_control_spec.hpp"

namespace mechint::app {

/// Solves `spec` on `problem` (its model and coordinate names; its start is not used: the problem
/// file gives its own) whose controls are named `controls`. Throws InvalidInput for a model without
/// controls or with holonomic constraints, an unknown name or method, empty bounds, a start or goal
/// outside them or where the model is not defined; NumericalFailure when Ipopt fails or the replayed
/// controls do not give the optimal motion.
OptimizeOutcome optimize_kernel_problem(const KernelProblem& problem, const OptimalControlSpec& spec,
                                        const std::vector<std::string>& controls);

}  // namespace mechint::app
