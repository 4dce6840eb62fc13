#include <cmath>
#include <utility>

#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/core/format.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"

namespace mechint::systems {
namespace {

/// The two masses at their Cartesian coordinates, on rods from the pivot at the origin.
app::DrawingText double_spherical_pendulum_drawing(const app::ParameterValues&) {
  app::DrawingText d;
  d.coordinates = {"x1", "y1", "z1", "x2", "y2", "z2"};
  d.fixed.push_back({"pivot", {0.0, 0.0, 0.0}});
  d.points.push_back({"m1", {"x1", "y1", "z1"}});
  d.points.push_back({"m2", {"x2", "y2", "z2"}});
  d.links = {{"pivot", "m1"}, {"m1", "m2"}};
  return d;
}

app::SystemEntry double_spherical_pendulum_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "double-spherical-pendulum",
      "two point masses on rods, Cartesian with two length constraints, gravity -z (000 sec. 5.2, 003); "
      "starts pattern-1 (default), pattern-2, pattern-3, relative-equilibrium (003 sec. 4); z, z' from the "
      "constraints",
      "vi-midpoint",
      [](const app::Overrides&) {
        const DoubleSphericalPendulum d;
        const HorizontalStart s = named_dsp_start("pattern-1");
        return std::vector<ParameterSpec>{
            ParameterSpec::real("m1", d.m1, "first mass", 1e-300),
            ParameterSpec::real("m2", d.m2, "second mass", 1e-300),
            ParameterSpec::real("l1", d.l1, "first rod length", 1e-300),
            ParameterSpec::real("l2", d.l2, "second rod length", 1e-300),
            ParameterSpec::real("g", d.gravity, "gravity"),
            ParameterSpec::choice("start", {"pattern-1", "pattern-2", "pattern-3", "relative-equilibrium"},
                                  "named start of 003 sec. 4 (x1 ... vy2 override it)"),
            ParameterSpec::real("x1", s.x1, "initial x of mass 1"),
            ParameterSpec::real("y1", s.y1, "initial y of mass 1"),
            ParameterSpec::real("x2", s.x2, "initial x of mass 2"),
            ParameterSpec::real("y2", s.y2, "initial y of mass 2"),
            ParameterSpec::real("vx1", s.vx1, "initial x velocity of mass 1"),
            ParameterSpec::real("vy1", s.vy1, "initial y velocity of mass 1"),
            ParameterSpec::real("vx2", s.vx2, "initial x velocity of mass 2"),
            ParameterSpec::real("vy2", s.vy2, "initial y velocity of mass 2")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<DoubleSphericalPendulum> p;
        p.model.m1 = v.real("m1");
        p.model.m2 = v.real("m2");
        p.model.l1 = v.real("l1");
        p.model.l2 = v.real("l2");
        p.model.gravity = v.real("g");
        HorizontalStart s = named_dsp_start(v.choice("start"));
        const auto pick = [&](const char* name, double& field) {
          if (v.was_set(name)) field = v.real(name);
        };
        pick("x1", s.x1), pick("y1", s.y1), pick("x2", s.x2), pick("y2", s.y2);
        pick("vx1", s.vx1), pick("vy1", s.vy1), pick("vx2", s.vx2), pick("vy2", s.vy2);
        const DspState st = complete_dsp_start(p.model, s);
        // The named starts are completed as DESIGN §2 says (pattern 3 has its x-velocity of mass 1
        // corrected). A start given by the user is never changed silently: refused instead.
        const bool user_start = v.was_set("x1") || v.was_set("y1") || v.was_set("x2") || v.was_set("y2") ||
                                v.was_set("vx1") || v.was_set("vy1") || v.was_set("vx2") || v.was_set("vy2");
        const std::pair<const char*, std::pair<double, double>> given[] = {
            {"vx1", {s.vx1, st.v[0]}}, {"vy1", {s.vy1, st.v[1]}}, {"vx2", {s.vx2, st.v[3]}}, {"vy2", {s.vy2, st.v[4]}}};
        for (const auto& [name, values] : given)
          if (user_start && std::abs(values.first - values.second) > 1e-12 * (1.0 + std::abs(values.first)))
            throw InvalidStart(std::string("the start's velocity is not tangent to the constraints and the vertical "
                                           "velocities cannot absorb it: ") + name + " = " + format_number(values.first) +
                               " would have to become " + format_number(values.second) +
                               "; give velocities tangent to the rods");
        p.q0 = st.q;
        p.initial_data = st.v;
        p.labels = {{"x1", "y1", "z1", "x2", "y2", "z2"}, {"Jz"}};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, double_spherical_pendulum_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(double_spherical_pendulum_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::DoubleSphericalPendulum);
