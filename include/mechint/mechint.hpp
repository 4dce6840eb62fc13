#pragma once
/// \file
/// Everything of the mechint core in one include.

#include "mechint/analysis/error_measures.hpp"
#include "mechint/model/legendre.hpp"
#include "mechint/analysis/symplecticity.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/chart.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/variational_integrator.hpp"
