#pragma once
/// \file
/// Builds the pendulum-chain simulation for a number of links fixed at compile time. The chain's
/// dimension is a template parameter (fixed-size storage, no allocation in a step), so every
/// supported number of links is its own instantiation; they are spread over three translation
/// units (links_01_10.cpp, …) so that a parallel build compiles them side by side.

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "app/runge_kutta_simulation.hpp"
#include "mechint/systems/pendulum_chain.hpp"

namespace mechint::systems::chain {

constexpr int kMaxLinks = 30;

using Factory = std::unique_ptr<app::Simulation> (*)(const app::ParameterValues&, const std::string&);

template <int N>
std::unique_ptr<app::Simulation> make_chain(const app::ParameterValues& v, const std::string& method) {
  const PendulumChain<N> model{v.real("m"), v.real("l"), v.real("g")};
  VecD<N> q0, w0;
  app::OutputLabels labels;
  for (int i = 0; i < N; ++i) {
    q0[i] = v.real("th" + std::to_string(i + 1));
    w0[i] = v.real("dth" + std::to_string(i + 1));
    labels.coordinates.push_back("th" + std::to_string(i + 1));
  }
  return app::make_simulation(model, labels, q0, w0, app::read_start_settings(v), method);
}

/// The factories for First, First+1, …, First+Count−1 links.
template <int First, int... I>
constexpr std::array<Factory, sizeof...(I)> factories(std::integer_sequence<int, I...>) {
  return {&make_chain<First + I>...};
}

/// Factory for `links` in [1, 10], [11, 20] and [21, 30]; each is defined in its own file.
Factory factory_01_10(int links);
Factory factory_11_20(int links);
Factory factory_21_30(int links);

}  // namespace mechint::systems::chain
