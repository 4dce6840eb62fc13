/// The pendulum chain of any number of links: its model reaches the methods through hand-derived
/// derivative kernels (src/kernel/chain_kernels.cpp) and the runtime-sized methods
/// (app/kernel_methods.hpp), compiled once for every length.
#include <cmath>
#include <cstdlib>

#include "app/drawing_helpers.hpp"
#include "app/kernel_methods.hpp"
#include "app/kernel_system.hpp"
#include "app/system_entry.hpp"
#include "kernel/chain_kernels.hpp"

namespace mechint::systems {
namespace {

/// The longest chain: a step holds about a dozen N x N matrices (N = 1000: ~100 MB).
constexpr int kMaxLinks = 1000;

int requested_links(const app::Overrides& overrides) {
  const auto it = overrides.find("links");
  if (it == overrides.end()) return 2;
  char* end = nullptr;
  const long n = std::strtol(it->second.c_str(), &end, 10);
  // An unusable value is reported by ParameterValues::resolve against the spec below.
  return (*end == '\0' && n >= 1 && n <= kMaxLinks) ? static_cast<int>(n) : 2;
}

/// The chain's problem from the parameter values: its kernels, the start, the column names.
app::KernelProblem chain_problem(const app::ParameterValues& v) {
  const int links = v.integer("links");
  app::KernelProblem p;
  p.model = std::make_shared<const kernel::KernelModel>(
      kernel::pendulum_chain_model(links, v.real("m"), v.real("l"), v.real("g")));
  p.q0.resize(links);
  p.qdot0.resize(links);
  for (int i = 0; i < links; ++i) {
    p.q0[i] = v.real("th" + std::to_string(i + 1));
    p.qdot0[i] = v.real("dth" + std::to_string(i + 1));
    p.labels.coordinates.push_back("th" + std::to_string(i + 1));
  }
  return p;
}

/// The links hinged at the origin, each of length l (app/drawing_helpers.hpp).
app::DrawingText pendulum_chain_drawing(const app::ParameterValues& v) {
  std::vector<std::string> angles;
  for (int i = 1; i <= v.integer("links"); ++i) angles.push_back("th" + std::to_string(i));
  return app::planar_chain_drawing(angles, std::vector<double>(angles.size(), v.real("l")));
}

app::SystemEntry pendulum_chain_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "pendulum-chain";
  e.summary =
      "planar chain of N point masses on massless links in relative joint angles (links=1..1000); "
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
  // Every length offers the same methods with the same options: those of one link.
  e.methods = [](const app::ParameterValues&) {
    return methods::offered_methods(methods::structure_of(kernel::pendulum_chain_model(1, 1.0, 1.0, 9.81)));
  };
  e.method_options = [](const app::ParameterValues&, const std::string& method) {
    return methods::method_options(methods::structure_of(kernel::pendulum_chain_model(1, 1.0, 1.0, 9.81)), method);
  };
  app::run_on_kernel_problems(e, chain_problem);
  e.optimize = [](const app::ParameterValues&, const app::OptimalControlSpec& spec, const std::vector<std::string>&)
      -> app::OptimizeOutcome {
    spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
  };
  e.drawing = app::drawing_from_text(e.name, pendulum_chain_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(pendulum_chain_entry);

}  // namespace
}  // namespace mechint::systems
