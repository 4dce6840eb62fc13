#include <cmath>
#include <cstdlib>

#include "systems/pendulum_chain/make_chain.hpp"

namespace mechint::systems {
namespace {

using chain::kMaxLinks;

int requested_links(const app::Overrides& overrides) {
  const auto it = overrides.find("links");
  if (it == overrides.end()) return 2;
  char* end = nullptr;
  const long n = std::strtol(it->second.c_str(), &end, 10);
  // An unusable value is reported by ParameterValues::resolve against the spec below.
  return (*end == '\0' && n >= 1 && n <= kMaxLinks) ? static_cast<int>(n) : 2;
}

// Every number of links offers the same methods with the same options: those of one link.
using AnyChain = app::Problem<PendulumChain<1>>;

app::SystemEntry pendulum_chain_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "pendulum-chain";
  e.summary =
      "planar chain of N point masses on massless links in relative joint angles (links=1..30); "
      "default start: DESIGN sec. 5's (pi/4 | (pi/2,0) | (pi/4,0,...)) at rest";
  e.default_method = "vi-midpoint";
  e.parameters = [](const app::Overrides& overrides) {
    const int n = requested_links(overrides);
    std::vector<ParameterSpec> specs = {ParameterSpec::integer("links", 2, "number of links", 1, kMaxLinks),
                                        ParameterSpec::real("m", 1.0, "mass of every point", 1e-300),
                                        ParameterSpec::real("l", 1.0, "length of every link", 1e-300),
                                        ParameterSpec::real("g", 9.81, "gravity")};
    for (int i = 1; i <= n; ++i) {
      const double th = i > 1 ? 0.0 : (n == 2 ? M_PI / 2 : M_PI / 4);
      specs.push_back(ParameterSpec::real("th" + std::to_string(i), th,
                                          i == 1 ? "initial angle of link 1 from the downward vertical"
                                                 : "initial joint angle " + std::to_string(i)));
      specs.push_back(
          ParameterSpec::real("dth" + std::to_string(i), 0.0, "initial rate of joint angle " + std::to_string(i)));
    }
    return specs;
  };
  e.methods = [](const app::ParameterValues&) { return app::offered_methods<AnyChain>(); };
  e.method_options = [](const app::ParameterValues&, const std::string& method) {
    return app::method_options<AnyChain>(method);
  };
  e.run = [](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
             const OutputSchedule& schedule, const app::ControlSchedule&, app::RowWriter& out) {
    const int links = v.integer("links");
    const chain::Runner run = links <= 10   ? chain::runner_01_10(links)
                              : links <= 20 ? chain::runner_11_20(links)
                                            : chain::runner_21_30(links);
    run(v, method, options, schedule, out);
  };
  e.stepping = [](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
                  double h, const app::ControlSchedule&) {
    const int links = v.integer("links");
    const chain::SessionMaker make = links <= 10   ? chain::session_maker_01_10(links)
                                     : links <= 20 ? chain::session_maker_11_20(links)
                                                   : chain::session_maker_21_30(links);
    return make(v, method, options, h);
  };
  return e;
}

MECHINT_REGISTER_SYSTEM(pendulum_chain_entry);

}  // namespace
}  // namespace mechint::systems
