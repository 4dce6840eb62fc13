#pragma once
/// \file
/// The starts that several rows share: a rule run in its Galerkin form (the Galerkin rows, and a
/// second-order rule composed, with indicators, with adapt=sundman), and a variational rule with
/// all its options (the variational rows, and the impact row of vi-trapezoid on a model whose walls
/// are off when it asks for what only the smooth rule has).

#include <memory>
#include <optional>

#include "methods/method_registry.hpp"

namespace mechint::methods {

/// `tableau` (with `composition` when given) on the Galerkin integrator, or on the Sundman one with
/// adapt=sundman; indicators=on carries a deviation by its exact tangent map.
std::unique_ptr<app::StartedStepper> start_galerkin_form(const std::shared_ptr<KernelProblem>& problem,
                                                         const kernel::GalerkinTableau& tableau,
                                                         const std::optional<kernel::Composition>& composition,
                                                         const ParameterValues& options, double h);

/// The variational rule `rule` with its options: the DEL step in momentum or position form, its
/// Galerkin form when composed, with indicators or adapt=sundman, the energy-conserving steps of
/// adapt=energy, and the explicit Störmer–Verlet steps of vi-trapezoid on a separable model.
std::unique_ptr<app::StartedStepper> start_variational_rule(const std::shared_ptr<KernelProblem>& problem,
                                                            kernel::Rule rule, const ParameterValues& options,
                                                            double h);

/// Whether the options ask a second-order rule for what only its Galerkin form or the adaptive
/// steps have: compose, indicators=on, adapt=sundman or adapt=energy.
bool asks_for_smooth_rule(const ParameterValues& options);

}  // namespace mechint::methods
