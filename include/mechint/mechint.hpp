#pragma once
/// \file
/// Everything of mechint in one include: the engine's API (mechint/system.hpp: systems, runs,
/// integrators, sweeps; linked from mechint::mechint) and the model calculus a model struct is
/// written against (AD scalars, Legendre transforms, charts, discrete Lagrangians, error measures).

#include "mechint/analysis/error_measures.hpp"
#include "mechint/model/legendre.hpp"
#include "mechint/analysis/symplecticity.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/system.hpp"
