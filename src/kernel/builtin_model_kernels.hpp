#pragma once
/// \file
/// The built-in systems whose AD kernels their own sources instantiate (src/systems/*.cpp,
/// MECHINT_INSTANTIATE_MODEL_KERNELS), declared. A source that needs kernel/model_adapter.txx for a
/// model of its own (a test's) and also runs built-ins includes this file, which includes the .txx:
/// it then compiles only its own model's kernels and links to the built-ins'. The tests that do so
/// compile in 0.37–0.77 of the time (docs/performance-history.md); a source that includes it without running
/// a built-in pays for parsing system headers it does not otherwise use (up to 2.5 s), which is why
/// the .txx does not include it. A built-in added to src/systems/ with kernels of its own is added
/// here too (a missing line costs compile time, never correctness).

#include "kernel/model_adapter.txx"
#include "mechint/systems/acrobot.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/point_mass_wall.hpp"
#include "mechint/systems/rigid_body.hpp"
#include "mechint/systems/spherical_pendulum.hpp"
#include "mechint/systems/three_body.hpp"
#include "mechint/discrete/chart.hpp"

namespace mechint::systems {
/// The spherical pendulum in the chart's angles (000 §4.2), whose rules are the restricted discrete
/// Lagrangians: the same alias as src/systems/spherical_pendulum.cpp's, which instantiates its kernels.
using SphericalPendulumInAngles = ChartModel<SphericalPendulum, SphericalAnglesChart>;
}  // namespace mechint::systems

MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::Acrobot);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::CartPole);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::DampedHarmonicOscillator);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::DampedPendulum);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::DoublePendulum);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::DoubleSphericalPendulum);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::HarmonicOscillator);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::Kepler);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::LowThrustSpacecraft);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::PointMassWall);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::RigidBody);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::SphericalPendulum);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::SphericalPendulumInAngles);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::ThreeBody);
