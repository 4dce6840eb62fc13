#pragma once
/// \file
/// Hand-derived kernels of the two nonholonomic built-ins (DESIGN §10; docs/nonholonomic.md): a free
/// body in the plane, L = m/2 (ẋ² + ẏ²) + ½ Σ I_i q̇_i² (no potential, a constant diagonal mass
/// matrix), and constraints linear in the velocities.

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// The Chaplygin sleigh (Bloch, Nonholonomic Mechanics and Control, ch. 1; Neimark & Fufaev): q = (x,
/// y, θ), (x, y) the centre of mass, θ the heading; mass m, moment of inertia I about the centre of
/// mass; a knife edge at distance a behind the centre of mass slides along the heading only:
///
///     L = m/2 (ẋ² + ẏ²) + I/2 θ̇²,      −sin θ ẋ + cos θ ẏ − a θ̇ = 0.
KernelModel chaplygin_sleigh_model(double mass, double inertia, double a);

/// The vertical rolling disk (Bloch ch. 1): q = (x, y, θ, φ), (x, y) the contact point, θ the heading,
/// φ the rolling angle; radius R, inertia I about the vertical and J about the axle:
///
///     L = m/2 (ẋ² + ẏ²) + I/2 θ̇² + J/2 φ̇²,      ẋ = R cos θ φ̇,  ẏ = R sin θ φ̇.
///
/// One symmetry generator, ξ = ∂/∂θ: L is invariant and ξ lies in the distribution (A ξ = 0), so
/// its momentum I θ̇ is conserved (the nonholonomic momentum equation).
KernelModel rolling_disk_model(double mass, double radius, double inertia, double axle_inertia);

}  // namespace mechint::kernel
