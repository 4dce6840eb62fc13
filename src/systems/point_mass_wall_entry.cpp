#include <stdexcept>
#include <string>

#include "mechint/systems/point_mass_wall.hpp"
#include "systems/entries.hpp"
#include "systems/impact_simulation.hpp"

namespace mechint::systems {

app::SystemEntry point_mass_wall_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "point-mass-wall";
  e.summary = "point mass L = qdot^2/2 - q bouncing on the floor phi = q >= 0 (004 §III-C), "
              "--set impact=mhc|ctec|dtec";
  e.methods = impact_methods();
  e.parameters = [](const auto&) {
    return join({ParameterSpec::real("q", 1.0, "initial height"),
                 ParameterSpec::real("p", 0.0, "initial momentum")},
                impact_parameters());
  };
  e.make = [](const app::ParameterValues& v, const std::string&) -> std::unique_ptr<app::Simulation> {
    const double q0 = v.real("q");
    if (!(q0 >= 0.0))
      throw std::invalid_argument("point-mass-wall: the start is below the floor, phi(q0) = q0 = " +
                                  format_number(q0) + " < 0");
    return std::make_unique<ImpactSimulation<PointMassWall>>(
        PointMassWall{}, std::vector<std::string>{"q"}, std::vector<std::string>{"p"}, false,
        VecD<1>(q0), VecD<1>(v.real("p")), read_impact_options(v, true));
  };
  return e;
}

}  // namespace mechint::systems
