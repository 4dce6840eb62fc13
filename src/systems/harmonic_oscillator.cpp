#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/harmonic_oscillator.hpp"

namespace mechint::systems {
namespace {

/// A mass on a line, tied to the origin (app/drawing_helpers.hpp).
app::DrawingText harmonic_oscillator_drawing(const app::ParameterValues&) { return app::oscillator_drawing(); }

app::SystemEntry harmonic_oscillator_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "harmonic-oscillator", "L = m qdot^2/2 - k q^2/2; exact solution q0 cos(wt) + (v0/w) sin(wt)", "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("m", 1.0, "mass", 1e-300),
                                          ParameterSpec::real("k", 1.0, "stiffness", 0.0),
                                          ParameterSpec::real("q", 1.0, "initial position"),
                                          ParameterSpec::real("v", 0.0, "initial velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<HarmonicOscillator> p(HarmonicOscillator{v.real("m"), v.real("k")});
        p.q0 = VecD<1>(v.real("q"));
        p.initial_data = VecD<1>(v.real("v"));
        p.labels = {{"q"}, {}};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, harmonic_oscillator_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(harmonic_oscillator_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::HarmonicOscillator);
