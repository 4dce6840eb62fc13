#include <array>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "app/variational_simulation.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {
namespace {

// The chain's dimension is a compile-time constant (fixed-size storage, no allocation in a step);
// `links` picks one of these instantiations at run time.
constexpr int kMaxLinks = 30;

int requested_links(const std::map<std::string, std::string>& overrides) {
  const auto it = overrides.find("links");
  if (it == overrides.end()) return 2;
  char* end = nullptr;
  const long n = std::strtol(it->second.c_str(), &end, 10);
  // An unusable value is reported by ParameterValues::resolve against the spec below.
  return (*end == '\0' && n >= 1 && n <= kMaxLinks) ? static_cast<int>(n) : 2;
}

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
  return app::make_variational_simulation(model, labels, q0, w0, app::read_start_settings(v), method);
}

using ChainFactory = std::unique_ptr<app::Simulation> (*)(const app::ParameterValues&, const std::string&);

template <int... I>
constexpr std::array<ChainFactory, sizeof...(I)> chain_factories(std::integer_sequence<int, I...>) {
  return {&make_chain<I + 1>...};
}

}  // namespace

app::SystemEntry pendulum_chain_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "pendulum-chain";
  e.summary =
      "planar chain of N point masses on massless links in relative joint angles (links=1..30); "
      "default start: DESIGN sec. 5's (pi/4 | (pi/2,0) | (pi/4,0,...)) at rest";
  e.methods = variational_methods();
  e.parameters = [](const std::map<std::string, std::string>& overrides) {
    const int n = requested_links(overrides);
    std::vector<ParameterSpec> specs = {
        ParameterSpec::integer("links", 2, "number of links", 1, kMaxLinks),
        ParameterSpec::real("m", 1.0, "mass of every point", 1e-300),
        ParameterSpec::real("l", 1.0, "length of every link", 1e-300),
        ParameterSpec::real("g", 9.81, "gravity")};
    for (int i = 1; i <= n; ++i) {
      const double th = i > 1 ? 0.0 : (n == 2 ? M_PI / 2 : M_PI / 4);
      specs.push_back(ParameterSpec::real("th" + std::to_string(i), th,
                                          i == 1 ? "initial angle of link 1 from the downward vertical"
                                                 : "initial joint angle " + std::to_string(i)));
      specs.push_back(ParameterSpec::real("dth" + std::to_string(i), 0.0,
                                          "initial rate of joint angle " + std::to_string(i)));
    }
    return join(specs, app::integrator_parameters());
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) {
    static constexpr auto factories = chain_factories(std::make_integer_sequence<int, kMaxLinks>());
    return factories[v.integer("links") - 1](v, method);
  };
  return e;
}

}  // namespace mechint::systems
