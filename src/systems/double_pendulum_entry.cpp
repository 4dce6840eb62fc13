#include <cmath>
#include <stdexcept>
#include <string>

#include "mechint/systems/double_pendulum.hpp"
#include "systems/entries.hpp"
#include "systems/impact_simulation.hpp"

namespace mechint::systems {

app::SystemEntry double_pendulum_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "double-pendulum";
  e.summary = "planar double pendulum of 004 (m = L = 1, g = 10), optional wall x2 >= -0.25 (--set wall=1) "
              "with elastic impacts (--set impact=mhc|ctec|dtec); starts fig2, fig1-left, fig1-right";
  e.methods = impact_methods();
  e.parameters = [](const auto&) {
    const DoublePendulum d;
    const auto& s = kDoublePendulumStarts[0];
    return join({ParameterSpec::real("m1", d.m1, "first mass", 1e-300),
                 ParameterSpec::real("m2", d.m2, "second mass", 1e-300),
                 ParameterSpec::real("l1", d.l1, "first rod length", 1e-300),
                 ParameterSpec::real("l2", d.l2, "second rod length", 1e-300),
                 ParameterSpec::real("g", d.gravity, "gravity"),
                 ParameterSpec::integer("wall", 0, "1: wall phi = l1 sin th1 + l2 sin(th1+th2) + wall_offset >= 0", 0, 1),
                 ParameterSpec::real("wall_offset", d.wall_offset, "distance of the wall left of the pivot"),
                 ParameterSpec::choice("start", {"fig2", "fig1-left", "fig1-right"},
                                       "named start of 004 (th1, th2, p1, p2 override it)"),
                 ParameterSpec::real("th1", s.th1, "initial angle of rod 1 from the downward vertical"),
                 ParameterSpec::real("th2", s.th2, "initial angle of rod 2 relative to rod 1"),
                 ParameterSpec::real("p1", s.p1, "initial canonical momentum conjugate to th1"),
                 ParameterSpec::real("p2", s.p2, "initial canonical momentum conjugate to th2")},
                impact_parameters());
  };
  e.make = [](const app::ParameterValues& v, const std::string&) -> std::unique_ptr<app::Simulation> {
    DoublePendulum model;
    model.m1 = v.real("m1");
    model.m2 = v.real("m2");
    model.l1 = v.real("l1");
    model.l2 = v.real("l2");
    model.gravity = v.real("g");
    model.wall_offset = v.real("wall_offset");
    const DoublePendulumStart* start = nullptr;
    for (const auto& s : kDoublePendulumStarts)
      if (v.choice("start") == s.name) start = &s;
    if (start == nullptr) throw std::invalid_argument("double-pendulum: unknown start");
    const auto pick = [&](const char* name, double named) { return v.was_set(name) ? v.real(name) : named; };
    const VecD<2> q0(pick("th1", start->th1), pick("th2", start->th2));
    const VecD<2> p0(pick("p1", start->p1), pick("p2", start->p2));
    const bool wall = v.integer("wall") == 1;
    if (wall) {
      const double phi = model.unilateral<double>(q0)[0];
      if (!(phi >= 0.0))
        throw std::invalid_argument("double-pendulum: the start is behind the wall, phi(q0) = " +
                                    format_number(phi) + " < 0");
    }
    return std::make_unique<ImpactSimulation<DoublePendulum>>(
        model, std::vector<std::string>{"th1", "th2"}, std::vector<std::string>{"p1", "p2"}, true, q0, p0,
        read_impact_options(v, wall));
  };
  return e;
}

}  // namespace mechint::systems
