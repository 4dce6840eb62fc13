#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/damped_pendulum.hpp"

namespace mechint::systems {
namespace {

/// One link hinged at the origin (app/drawing_helpers.hpp).
app::DrawingText damped_pendulum_drawing(const app::ParameterValues& v) {
  return app::planar_chain_drawing({"th"}, {v.real("l")});
}

app::SystemEntry damped_pendulum_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "damped-pendulum",
      "pendulum with viscous friction c at the pivot and a pivot torque u1 (control); th from the downward vertical",
      "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("m", 1.0, "mass of the bob", 1e-300),
                                          ParameterSpec::real("l", 1.0, "length", 1e-300),
                                          ParameterSpec::real("g", 9.81, "gravitational acceleration"),
                                          ParameterSpec::real("c", 0.1, "friction torque per angular velocity", 0.0),
                                          ParameterSpec::real("th", 1.0, "initial angle from the downward vertical"),
                                          ParameterSpec::real("dth", 0.0, "initial angular velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<DampedPendulum> p(DampedPendulum{v.real("m"), v.real("l"), v.real("g"), v.real("c")});
        p.q0 = VecD<1>(v.real("th"));
        p.initial_data = VecD<1>(v.real("dth"));
        p.labels = {{"th"}, {}};
        p.labels.periodic = {true};
        return f(p);
      });
  e.controls = app::numbered_controls(DampedPendulum::kNumControls);
  e.drawing = app::drawing_from_text(e.name, damped_pendulum_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(damped_pendulum_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::DampedPendulum);
