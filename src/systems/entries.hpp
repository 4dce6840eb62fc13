#pragma once
/// \file
/// One function per system of the command line; each lives in its own file in this folder.
/// To add a system, see docs/adding-a-system.md.

#include "app/simulation.hpp"

namespace mechint::systems {

app::SystemEntry double_pendulum_entry();
app::SystemEntry point_mass_wall_entry();
app::SystemEntry harmonic_oscillator_entry();
app::SystemEntry kepler_entry();
app::SystemEntry spherical_pendulum_entry();
app::SystemEntry pendulum_chain_entry();
app::SystemEntry three_body_entry();
app::SystemEntry rigid_body_entry();
app::SystemEntry double_spherical_pendulum_entry();

/// Concatenates parameter lists.
std::vector<app::ParameterSpec> join(std::vector<app::ParameterSpec> a,
                                     const std::vector<app::ParameterSpec>& b);

/// The method names every variational system accepts.
std::vector<std::string> variational_methods();

}  // namespace mechint::systems
