#include "app/variational_simulation.hpp"

namespace mechint::app {

std::vector<ParameterSpec> integrator_parameters() {
  return {
      ParameterSpec::choice("form", {"momentum", "position"},
                            "state carried between steps: (q_k, p_k) or (q_{k-1}, q_k)"),
      ParameterSpec::choice("start", {"default", "source"},
                            "default: p0 = dL/dqdot(q0, v0) and one momentum-form step; source: "
                            "000's Euler step at fine_h, then the integrator at fine_h up to t = h"),
      ParameterSpec::real("fine_h", 1e-5, "fine step of start=source (h must be a multiple)", 1e-12, 1.0),
      ParameterSpec::real("newton_tol", 1e-10,
                          "Newton stops when the update is below newton_tol*(1+|q|)", 1e-16, 1e-3),
  };
}

StartSettings read_start_settings(const ParameterValues& values, bool momentum_start) {
  StartSettings s;
  s.form = values.choice("form") == "position" ? DelForm::kPosition : DelForm::kMomentum;
  if (values.choice("start") == "source") {
    if (momentum_start)
      throw std::invalid_argument("start=source needs initial velocities; this system starts from momenta");
    s.kind = StartSettings::Kind::kSource;
  } else {
    s.kind = momentum_start ? StartSettings::Kind::kMomentum : StartSettings::Kind::kVelocity;
  }
  s.fine_h = values.real("fine_h");
  s.newton.step_tolerance = values.real("newton_tol");
  return s;
}

}  // namespace mechint::app
