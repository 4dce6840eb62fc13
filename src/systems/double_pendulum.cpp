#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/double_pendulum.hpp"

namespace mechint::systems {
namespace {

/// The two links hinged at the origin (app/drawing_helpers.hpp), and with wall=1 the wall m2 strikes.
app::DrawingText double_pendulum_drawing(const app::ParameterValues& v) {
  app::DrawingText d = app::planar_chain_drawing({"th1", "th2"}, {v.real("l1"), v.real("l2")});
  if (v.integer("wall") == 1) {
    // φ = l1 s1 + l2 s12 + wall_offset ≥ 0: the wall is the vertical line x = −wall_offset.
    const double reach = v.real("l1") + v.real("l2");
    d.fixed.push_back({"wall_top", {-v.real("wall_offset"), 1.1 * reach}});
    d.fixed.push_back({"wall_bottom", {-v.real("wall_offset"), -1.1 * reach}});
    d.walls.push_back({"wall_top", "wall_bottom", "m2"});
  }
  return d;
}

app::SystemEntry double_pendulum_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "double-pendulum",
      "planar double pendulum of 004 (m = L = 1, g = 10), optional wall x2 >= -0.25 (--set wall=1) "
      "with elastic impacts (--set impact=mhc|ctec|dtec); starts fig2, fig1-left, fig1-right",
      "vi-trapezoid",
      [](const app::Overrides&) {
        const DoublePendulum d;
        const auto& s = kDoublePendulumStarts[0];
        return std::vector<ParameterSpec>{
            ParameterSpec::real("m1", d.m1, "first mass", 1e-300),
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
            ParameterSpec::real("p2", s.p2, "initial canonical momentum conjugate to th2")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<DoublePendulum> p;
        p.model.m1 = v.real("m1");
        p.model.m2 = v.real("m2");
        p.model.l1 = v.real("l1");
        p.model.l2 = v.real("l2");
        p.model.gravity = v.real("g");
        p.model.wall_offset = v.real("wall_offset");
        const DoublePendulumStart* start = nullptr;
        for (const auto& s : kDoublePendulumStarts)
          if (v.choice("start") == s.name) start = &s;
        const auto pick = [&](const char* name, double named) { return v.was_set(name) ? v.real(name) : named; };
        p.q0 = VecD<2>(pick("th1", start->th1), pick("th2", start->th2));
        p.initial_data = VecD<2>(pick("p1", start->p1), pick("p2", start->p2));
        p.initial = app::InitialData::kMomentum;
        p.walls = v.integer("wall") == 1;
        if (p.walls) {
          const double phi = p.model.unilateral<double>(p.q0)[0];
          if (!(phi >= 0.0))
            throw InvalidStart("double-pendulum: the start is behind the wall, phi(q0) = " + format_number(phi) +
                               " < 0");
        }
        p.labels = {{"th1", "th2"}, {}};
        p.labels.canonical_momenta = {"p1", "p2"};
        p.labels.modified_energy = true;
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, double_pendulum_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(double_pendulum_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::DoublePendulum);
