#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/kepler.hpp"

namespace mechint::systems {
namespace {

/// The body about the centre at the origin (app/drawing_helpers.hpp).
app::DrawingText kepler_drawing(const app::ParameterValues&) { return app::orbit_drawing(); }

app::SystemEntry kepler_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "kepler", "planar Kepler problem L = |qdot|^2/2 + mu/|q|; default: pericentre of a = 1, e = 0.5", "vi-midpoint",
      [](const app::Overrides&) {
        VecD<2> q0, v0;
        Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
        return std::vector<ParameterSpec>{ParameterSpec::real("mu", 1.0, "gravitational parameter", 1e-300),
                                          ParameterSpec::real("time_scale_power", 1.5,
                                                              "alpha of adapt=sundman's time scale s = r^alpha",
                                                              0.0, 3.0),
                                          ParameterSpec::real("x", q0[0], "initial x"),
                                          ParameterSpec::real("y", q0[1], "initial y"),
                                          ParameterSpec::real("vx", v0[0], "initial x velocity"),
                                          ParameterSpec::real("vy", v0[1], "initial y velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<Kepler> p(Kepler{v.real("mu"), v.real("time_scale_power")});
        p.q0 = VecD<2>(v.real("x"), v.real("y"));
        if (p.q0.norm() == 0.0) throw InvalidInput("kepler: the start may not be at the origin");
        p.initial_data = VecD<2>(v.real("vx"), v.real("vy"));
        p.labels = {{"x", "y"}, {"J"}};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, kepler_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(kepler_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::Kepler);
