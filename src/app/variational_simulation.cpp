#include "app/variational_simulation.hpp"

namespace mechint::app {

std::vector<std::string> OutputLabels::leading_columns() const {
  std::vector<std::string> c{"t"};
  c.insert(c.end(), coordinates.begin(), coordinates.end());
  c.insert(c.end(), velocities.begin(), velocities.end());
  c.push_back(energy_column);
  c.insert(c.end(), momenta.begin(), momenta.end());
  return c;
}

std::vector<ParameterSpec> integrator_parameters() {
  return {
      ParameterSpec::choice("form", {"momentum", "position"},
                            "state carried between steps: (q_k, p_k) or (q_{k-1}, q_k)"),
      ParameterSpec::choice("init", {"default", "source"},
                            "default: p0 = dL/dqdot(q0, v0) and one momentum-form step; source: "
                            "000's Euler step at fine_h, then the integrator at fine_h up to t = h"),
      ParameterSpec::real("fine_h", 1e-5, "fine step of init=source (h must be a multiple)", 1e-12, 1.0),
      ParameterSpec::choice("newton", {"full", "simplified"},
                            "full: exact Jacobian at every iterate; simplified: Jacobian kept over "
                            "iterations and steps, refreshed when convergence slows (001 §5)"),
      ParameterSpec::real("newton_tol", 1e-10,
                          "Newton stops when the update is below newton_tol*(1+|q|)", 1e-16, 1e-3),
  };
}

std::vector<ParameterSpec> runge_kutta_parameters() {
  return {
      ParameterSpec::real("rtol", 1e-8, "relative tolerance of dopri5 and rk78", 1e-15, 1.0),
      ParameterSpec::real("atol", 1e-10, "absolute tolerance of dopri5 and rk78", 1e-18, 1.0),
  };
}

StartSettings read_start_settings(const ParameterValues& values, bool momentum_start) {
  StartSettings s;
  s.form = values.choice("form") == "position" ? DelForm::kPosition : DelForm::kMomentum;
  if (values.choice("init") == "source") {
    if (momentum_start)
      throw std::invalid_argument("init=source needs initial velocities; this system starts from momenta");
    s.kind = StartSettings::Kind::kSource;
  } else {
    s.kind = momentum_start ? StartSettings::Kind::kMomentum : StartSettings::Kind::kVelocity;
  }
  s.fine_h = values.real("fine_h");
  s.newton.step_tolerance = values.real("newton_tol");
  s.newton.variant = parse_newton_variant(values.choice("newton"));
  if (values.has("rtol")) s.rtol = values.real("rtol");
  if (values.has("atol")) s.atol = values.real("atol");
  return s;
}

}  // namespace mechint::app
