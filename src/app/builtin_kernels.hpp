#pragma once
/// \file
/// A built-in system on the kernel boundary: its problem's model turned into derivative kernels by
/// automatic differentiation (kernel/model_adapter.hpp), and every method of the command line run
/// there by the rows of the one method registry (src/methods/method_registry.hpp) that its
/// structure admits. A problem in a chart (000 §4.2) runs on the kernels of its model in chart
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
  k.charted = P::kCharted;
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

/// The structure that decides the problem's methods (src/methods/method_registry.hpp): its kernel
/// model's, in a chart when it has one, its walls switched off when the run has them off.
template <class P>
methods::MethodStructure method_structure_of(const P& p) {
  bool walls = false, walls_off = false;
  if constexpr (HasUnilateralConstraints<typename P::Model>) {
    walls = p.walls;
    walls_off = !p.walls;
  }
  methods::MethodStructure s =
      methods::structure_of(*kernel::ModelAdapter<decltype(integrated_model(p))>::kernels_for_runs(integrated_model(p), walls));
  s.walls_switched_off = walls_off;
  s.charted = P::kCharted;
  return s;
}

}  // namespace mechint::app
