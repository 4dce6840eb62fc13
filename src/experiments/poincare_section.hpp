#pragma once
/// \file
/// Poincaré sections of an unconstrained kernel model: the states where one coordinate crosses zero
/// upwards (q_i = 0 with q̇_i > 0) along a Galerkin run, each found between the two steps that
/// bracket it by interpolation (chaos_maps.cpp draws the Hénon–Heiles sections with it).

#include <vector>

#include "kernel/galerkin_integrator.hpp"

namespace mechint::experiments {

/// One crossing: its time and the state (q, q̇) there; q[coordinate] is zero to round-off.
struct SectionCrossing {
  double t;
  kernel::Vector q, v;
};

/// Runs `tableau` at step h from (q0, v0) to t_end and returns the upward crossings of
/// q[coordinate] = 0. Between the steps (t0, t1) that bracket one, every coordinate is the quintic
/// Hermite interpolant of its values, velocities and accelerations (the Euler–Lagrange ODE's) at
/// both ends — its error is O(h⁶) in q and O(h⁵) in q̇, below a fourth-order rule's own at the steps
/// used here — and the crossing is the root of the interpolated q[coordinate] (TOMS 748).
/// Throws what the integrator throws (NumericalFailure, DomainError) when a step fails.
std::vector<SectionCrossing> section_crossings(const kernel::KernelModel& model, const kernel::GalerkinTableau& tableau,
                                               double h, const kernel::Vector& q0, const kernel::Vector& v0,
                                               double t_end, int coordinate);

}  // namespace mechint::experiments
