#include "methods/method_options.hpp"

#include "kernel/galerkin_tableau.hpp"

namespace mechint::methods {

std::vector<ParameterSpec> variational_options() {
  std::vector<ParameterSpec> options = {
      ParameterSpec::choice("form", {"momentum", "position"},
                            "state carried between steps: (q_k, p_k) or (q_{k-1}, q_k)"),
      ParameterSpec::choice("init", {"default", "source"},
                            "default: p0 = dL/dqdot(q0, v0) and one momentum-form step; source: "
                            "000's Euler step at fine_h, then the integrator at fine_h up to t = h"),
      ParameterSpec::real("fine_h", 1e-5, "fine step of init=source (h must be a multiple)", 1e-12, 1.0),
      ParameterSpec::choice("newton", {"full", "simplified"},
                            "full: exact Jacobian at every iterate; simplified: Jacobian kept over "
                            "iterations and steps, refreshed when convergence slows (001 §5)"),
      ParameterSpec::real("newton_tol", 1e-10, "Newton stops when the update is below newton_tol*(1+|q|)", 1e-16,
                          1e-3),
  };
  const auto check = step_check_options();
  options.insert(options.end(), check.begin(), check.end());
  return options;
}

std::vector<ParameterSpec> step_check_options() {
  return {
      ParameterSpec::choice("check", {"on", "off"},
                            "confirm steps by two steps of h/2 and reject a Newton solution that is not the "
                            "continuation of the motion (docs/trustworthy-runs.md)"),
      ParameterSpec::real("check_ratio", StepCheckOptions{}.max_ratio,
                          "reject when the two half steps end farther than this many step lengths away", 1e-6, 1e6),
      ParameterSpec::integer("check_every", static_cast<int>(StepCheckOptions{}.every),
                             "confirm steps 1, 2, 4, ... then every this many (and every suspicious step)", 1,
                             1000000000),
  };
}

std::vector<ParameterSpec> tolerance_options(const std::string& method) {
  return {
      ParameterSpec::real("rtol", 1e-8, "relative tolerance of " + method, 1e-15, 1.0),
      ParameterSpec::real("atol", 1e-10, "absolute tolerance of " + method, 1e-18, 1.0),
  };
}

std::vector<ParameterSpec> impact_options() {
  const ImpactOptions defaults;
  return {ParameterSpec::choice("impact", {"mhc", "ctec", "dtec"},
                                "impact law: mhc (004 eq. 28, windowed), ctec (eq. 26), dtec (eq. 25)"),
          ParameterSpec::real("window_before", defaults.window_before, "MHC window before an impact, seconds", 1e-12),
          ParameterSpec::real("window_after", defaults.window_after, "MHC window after an impact, seconds", 1e-12),
          compose_option()};
}

std::vector<ParameterSpec> energy_momentum_options() {
  std::vector<ParameterSpec> options = {
      ParameterSpec::real("newton_tol", 1e-10,
                          "Newton stops when the update is below newton_tol*(1+|q|) or stalls at round-off", 1e-16,
                          1e-3)};
  const auto check = step_check_options();
  options.insert(options.end(), check.begin(), check.end());
  options.push_back(compose_option());
  return options;
}

std::vector<ParameterSpec> galerkin_options() {
  std::vector<ParameterSpec> options = {
      ParameterSpec::choice("newton", {"full", "simplified"},
                            "full: exact Jacobian at every iterate; simplified: Jacobian kept over "
                            "iterations and steps, refreshed when convergence slows"),
      ParameterSpec::real("newton_tol", 1e-12, "Newton stops when the update moves q by less than newton_tol*(1+|q|)",
                          1e-16, 1e-3),
      ParameterSpec::choice("check", {"on", "off"},
                            "reject a step whose stage energy does not balance with the forces' work "
                            "(a Newton root that is not the continuation of the motion; docs/methods.md)"),
      indicators_option()};
  for (auto& spec : adapt_options()) options.push_back(std::move(spec));
  return options;
}

ParameterSpec compose_option() {
  return ParameterSpec::choice("compose", kernel::composition_names(),
                               "compose the symmetric step into one of order 4 (yoshida4: 3 sub-steps, suzuki4: 5), "
                               "6 (kahan-li6: 9) or 8 (kahan-li8: 17) (docs/methods.md); unconstrained models in "
                               "momentum form, energy-momentum with its constraints (there each sub-step a pair of half steps), "
                               "the impact rows without walls");
}

ParameterSpec indicators_option() {
  return ParameterSpec::choice("indicators", {"off", "on"},
                               "on: carry a deviation by the exact tangent map of every step and add the chaos "
                               "indicators megno, lyapunov and fli as columns (docs/chaos-indicators.md); with "
                               "holonomic constraints on vi-trapezoid and the Lobatto rules");
}

ParameterSpec runge_kutta_indicators_option() {
  return ParameterSpec::choice("indicators", {"off", "on"},
                               "on: carry a deviation by the variational equations of the Euler-Lagrange ODE, "
                               "integrated with the motion, and add the chaos indicators megno, lyapunov and fli as "
                               "columns (docs/chaos-indicators.md; dopri5 then clips its steps at the output times "
                               "instead of interpolating)");
}

std::vector<ParameterSpec> adapt_options() {
  return {ParameterSpec::choice("adapt", {"off", "sundman", "energy"},
                                "sundman: physical steps dt = h*s(q) from the model's time scale s (a model file's "
                                "time_scale; kepler and three-body: a power of the distance), the method applied at "
                                "the fixed step h in the fictive time, where it stays symplectic; energy (vi-midpoint): "
                                "each step's size solved for so that the discrete energy is conserved (Kane, Marsden & "
                                "Ortiz 1999), h the first step's (docs/adaptive-steps.md); models without forces"),
          ParameterSpec::choice("land", {"aside", "inline"},
                                "adapt=sundman's rows at the output times: aside, from a step of adjusted size taken "
                                "off the trajectory (which keeps its fixed fictive step); inline, the trajectory "
                                "itself takes that step")};
}

ImpactOptions read_impact_options(const ParameterValues& options) {
  ImpactOptions impact;
  impact.law = parse_impact_law(options.choice("impact"));
  impact.window_before = options.real("window_before");
  impact.window_after = options.real("window_after");
  impact.record_impacts = false;
  impact.composition = read_composition(options);
  return impact;
}

std::vector<double> read_composition(const ParameterValues& options) {
  if (!options.has("compose") || options.choice("compose") == "none") return {};
  return kernel::composition_named(options.choice("compose")).gammas;
}

NewtonOptions read_newton_options(const ParameterValues& options) {
  NewtonOptions newton;
  if (!options.has("newton_tol")) return newton;
  newton.step_tolerance = options.real("newton_tol");
  if (options.has("newton")) newton.variant = parse_newton_variant(options.choice("newton"));
  return newton;
}

StepCheckOptions read_step_check_options(const ParameterValues& options) {
  StepCheckOptions check;
  check.enabled = options.choice("check") == "on";
  check.max_ratio = options.real("check_ratio");
  check.every = options.integer("check_every");
  return check;
}

StepCheckOptions read_energy_balance_check(const ParameterValues& options) {
  StepCheckOptions check;
  check.enabled = !options.has("check") || options.choice("check") == "on";
  return check;
}

bool chose(const ParameterValues& options, const std::string& name, const std::string& value) {
  return options.has(name) && options.choice(name) == value;
}

}  // namespace mechint::methods
