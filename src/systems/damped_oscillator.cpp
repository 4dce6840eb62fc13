#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/damped_harmonic_oscillator.hpp"

namespace mechint::systems {
namespace {

/// A mass on a line, tied to the origin (app/drawing_helpers.hpp).
app::DrawingText damped_oscillator_drawing(const app::ParameterValues&) { return app::oscillator_drawing(); }

app::SystemEntry damped_oscillator_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "damped-oscillator",
      "m qddot = -k q - c qdot (Rayleigh dissipation c qdot^2/2); the energy decays at the rate c/m", "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("m", 1.0, "mass", 1e-300),
                                          ParameterSpec::real("k", 1.0, "stiffness", 0.0),
                                          ParameterSpec::real("c", 0.1, "viscous damping coefficient", 0.0),
                                          ParameterSpec::real("q", 1.0, "initial position"),
                                          ParameterSpec::real("v", 0.0, "initial velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<DampedHarmonicOscillator> p(DampedHarmonicOscillator{v.real("m"), v.real("k"), v.real("c")});
        p.q0 = VecD<1>(v.real("q"));
        p.initial_data = VecD<1>(v.real("v"));
        p.labels = {{"q"}, {}};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, damped_oscillator_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(damped_oscillator_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::DampedHarmonicOscillator);
