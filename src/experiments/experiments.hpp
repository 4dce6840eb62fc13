#pragma once
/// \file
/// The experiments of `mechint reproduce`, one function per experiment, each in its own file.

#include "app/experiment_entry.hpp"

namespace mechint::experiments {

/// Orders of convergence, momentum and energy behaviour and symplecticity on Kepler.
app::ExperimentEntry core_convergence_entry();

/// 004: H and H~ of both Stormer-Verlet integrators, the three impact laws on the double pendulum.
app::ExperimentEntry impacts_entry();

/// 001: restricted three-body problem, Jacobi error over 1e4 time units and work-precision against RK.
app::ExperimentEntry three_body_entry();

/// 000 Table 1: rigid body in unit quaternions.
app::ExperimentEntry rigid_body_entry();
/// 000 Table 2: double spherical pendulum, VI against energy–momentum.
app::ExperimentEntry double_spherical_pendulum_entry();
/// 003 §5 Figs. 17–18: energy–momentum integrator against the DAE baseline.
app::ExperimentEntry dsp_dae_entry();
/// 003 §4: pattern evocation, critical and resonant rates of patterns I–III.
app::ExperimentEntry pattern_evocation_entry();
/// 001 §1: energy decay of the forced VIs against the exact decay and RK4 (damped oscillator, pendulum).
app::ExperimentEntry damped_systems_entry();
/// 004 §V: DMOC on a pendulum swing-up, a cart-pole swing-up and a low-thrust orbit raise.
app::ExperimentEntry optimal_control_entry();
/// `mechint reproduce high-order` (high_order.cpp).
app::ExperimentEntry high_order_entry();
/// `mechint reproduce chaos-maps` (chaos_maps.cpp): MEGNO maps of Hénon–Heiles and the restricted three-body problem.
app::ExperimentEntry chaos_maps_entry();
/// `mechint reproduce adaptive` (adaptive.cpp): adapt=sundman against fixed steps and adaptive Runge–Kutta.
app::ExperimentEntry adaptive_entry();
/// `mechint reproduce nonholonomic` (nonholonomic.cpp): Chaplygin sleigh and rolling disk against reference motions.
app::ExperimentEntry nonholonomic_entry();

}  // namespace mechint::experiments
