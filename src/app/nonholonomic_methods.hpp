#pragma once
/// \file
/// The methods of a kernel model with nonholonomic constraints (kernel/nonholonomic_integrator.hpp):
/// the symmetric second-order rules vi-midpoint and vi-trapezoid as discrete Lagrange–d'Alembert
/// integrators. app/kernel_methods.cpp runs them behind its started stepper and recorder, whose
/// columns gain `nonholonomic_residual` and `mu1…mur`.

#include <memory>
#include <string>
#include <vector>

#include "app/kernel_methods.hpp"
#include "kernel/nonholonomic_integrator.hpp"

namespace mechint::app {

/// vi-midpoint (the default) and vi-trapezoid.
std::vector<std::string> nonholonomic_methods();
/// The options of `method` on a nonholonomic model (newton, newton_tol); throws InvalidInput for a
/// method that does not apply, saying which do.
std::vector<ParameterSpec> nonholonomic_method_options(const std::string& method);
/// The integrator of `method` with its options, started from the problem's (q0, q̇0).
std::unique_ptr<kernel::NonholonomicIntegrator> start_nonholonomic(const KernelProblem& problem, const std::string& method,
                                                                   const ParameterValues& options, double h);

}  // namespace mechint::app
