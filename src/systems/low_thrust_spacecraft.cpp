#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/low_thrust_spacecraft.hpp"

namespace mechint::systems {
namespace {

/// The spacecraft about the body at the origin (app/drawing_helpers.hpp).
app::DrawingText low_thrust_spacecraft_drawing(const app::ParameterValues&) { return app::orbit_drawing(); }

app::SystemEntry low_thrust_spacecraft_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "low-thrust-spacecraft",
      "planar spacecraft around one body (mu), thrust accelerations u1 radial and u2 tangential (controls); "
      "default: circular orbit of radius 1",
      "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("m", 1.0, "mass of the spacecraft", 1e-300),
                                          ParameterSpec::real("mu", 1.0, "gravitational parameter", 1e-300),
                                          ParameterSpec::real("x", 1.0, "initial x"),
                                          ParameterSpec::real("y", 0.0, "initial y"),
                                          ParameterSpec::real("vx", 0.0, "initial x velocity"),
                                          ParameterSpec::real("vy", 1.0, "initial y velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<LowThrustSpacecraft> p(LowThrustSpacecraft{v.real("m"), v.real("mu")});
        p.q0 = VecD<2>(v.real("x"), v.real("y"));
        if (p.q0.norm() == 0.0) throw InvalidInput("low-thrust-spacecraft: the start may not be at the origin");
        p.initial_data = VecD<2>(v.real("vx"), v.real("vy"));
        p.labels = {{"x", "y"}, {"J"}};
        return f(p);
      });
  e.controls = app::numbered_controls(LowThrustSpacecraft::kNumControls);
  e.drawing = app::drawing_from_text(e.name, low_thrust_spacecraft_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(low_thrust_spacecraft_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::LowThrustSpacecraft);
