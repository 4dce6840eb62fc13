#pragma once
/// \file
/// Runs the pendulum chain for a number of links fixed at compile time. The chain's dimension is a
/// template parameter (fixed-size storage, no allocation in a step), so every supported number of
/// links is its own instantiation; they are spread over three translation units
/// (links_01_10.cpp, …) so that a parallel build compiles them side by side.

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "app/system_entry.hpp"
#include "mechint/systems/pendulum_chain.hpp"

namespace mechint::systems::chain {

constexpr int kMaxLinks = 30;

/// The problem of a chain of N links from the parameter values of the system.
template <int N>
app::Problem<PendulumChain<N>> chain_problem(const app::ParameterValues& v) {
  app::Problem<PendulumChain<N>> p(PendulumChain<N>{v.real("m"), v.real("l"), v.real("g")});
  for (int i = 0; i < N; ++i) {
    p.q0[i] = v.real("th" + std::to_string(i + 1));
    p.initial_data[i] = v.real("dth" + std::to_string(i + 1));
    p.labels.coordinates.push_back("th" + std::to_string(i + 1));
  }
  return p;
}

using Runner = void (*)(const app::ParameterValues&, const std::string&, const app::ParameterValues&,
                        const OutputSchedule&, app::RowWriter&);

template <int N>
void run_chain(const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
               const OutputSchedule& schedule, app::RowWriter& out) {
  app::run_problem(chain_problem<N>(v), method, options, schedule, out);
}

/// An integrator of an N-link chain stepped by its caller (app/stepping_session.hpp).
using SessionMaker = std::unique_ptr<app::SteppingSession> (*)(const app::ParameterValues&, const std::string&,
                                                               const app::ParameterValues&, double);

template <int N>
std::unique_ptr<app::SteppingSession> chain_session(const app::ParameterValues& v, const std::string& method,
                                                    const app::ParameterValues& options, double h) {
  return app::make_stepping_session(chain_problem<N>(v), method, options, h);
}

/// The session makers for First, First+1, … links.
template <int First, int... I>
constexpr std::array<SessionMaker, sizeof...(I)> session_makers(std::integer_sequence<int, I...>) {
  return {&chain_session<First + I>...};
}

/// The runners for First, First+1, …, First+Count−1 links.
template <int First, int... I>
constexpr std::array<Runner, sizeof...(I)> runners(std::integer_sequence<int, I...>) {
  return {&run_chain<First + I>...};
}

/// Runner for `links` in [1, 10], [11, 20] and [21, 30]; each is defined in its own file.
Runner runner_01_10(int links);
Runner runner_11_20(int links);
Runner runner_21_30(int links);
SessionMaker session_maker_01_10(int links);
SessionMaker session_maker_11_20(int links);
SessionMaker session_maker_21_30(int links);

}  // namespace mechint::systems::chain
