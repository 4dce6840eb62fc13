// `mechint reproduce high-order`: work–precision of the methods of order 4–8 (DESIGN §10; the
// Galerkin rules and the compositions of src/kernel/) against the second-order midpoint VI and the
// adaptive Runge–Kutta baselines at several tolerances, on the Kepler problem (e = 0.5 and 0.9, the
// closed-form orbit as the standard), the restricted three-body problem of 001 (rk78 at 1e−14 as the
// standard) and the double spherical pendulum (constrained: the Lobatto rules, the midpoint VI and
// energy-momentum with its compositions against the `dae` baseline (IDA) at several tolerances,
// vi-lobatto6 at a 16 times smaller step as the standard); then the energy error of each
// variational method over 10⁶ steps of the Kepler orbit at 50 steps per period (bounded, no drift).
// Last, the phase error over 10⁴ periods of the e = 0.5 orbit at equal CPU time: the order-8
// methods against rk78 at its best tolerance (and dopri5), and where their lines cross.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "methods/method_registry.hpp"
#include "kernel/kernel_dae.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/core/format.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint::experiments {
namespace high_order_experiment {

using kernel::Vector;

struct Problem {
  std::string name;
  std::shared_ptr<const kernel::KernelModel> model;
  Vector q0, v0;
  double t_end;
  std::function<Vector()> reference;  ///< q at t_end
  std::vector<double> steps_per_unit;  ///< the step sizes h = 1/steps_per_unit of the fixed-step methods
};

struct Row {
  std::string problem, method;
  double h_or_tol, error, cpu_s;
  long steps;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A variational method of the kernel boundary by name (its tableau from the method registry).
std::unique_ptr<kernel::KernelGalerkinIntegrator> galerkin(const Problem& p, const std::string& method, double h) {
  const std::string rule = method.substr(0, method.find(' '));
  // The second-order rules in their Galerkin form: the midpoint rule is Gauss with one stage, the
  // trapezoid rule Lobatto IIIA-IIIB with two, whose steps are explicit Störmer–Verlet ones on a
  // separable model such as Kepler (docs/methods.md, "Explicit vi-trapezoid").
  const auto tableau = methods::galerkin_tableau_of(rule).value_or(
      rule == "vi-trapezoid" ? kernel::lobatto_tableau(2) : kernel::gauss_tableau(1));
  // "compose=SCHEME" (of the midpoint rule) or "vi-trapezoid compose=SCHEME"; " newton=simplified"
  // after a rule's name keeps the factorization across iterations and steps (`--set newton=simplified`).
  const auto at = method.find("compose=");
  const auto composition = at != std::string::npos
                               ? kernel::composition_named(method.substr(at + 8, method.find(' ', at) - (at + 8)))
                               : kernel::Composition{};
  NewtonOptions newton;
  if (method.find("newton=simplified") != std::string::npos) newton.variant = NewtonVariant::kSimplified;
  auto vi = std::make_unique<kernel::KernelGalerkinIntegrator>(*p.model, tableau, h, composition, newton);
  vi->start_from_velocity(p.q0, p.v0);
  return vi;
}

/// Where a run ends: q at t_end, the steps taken, the time reached and the CPU time (the start included).
struct RunEnd {
  Vector q;
  long steps;
  double t, cpu_s;
};

/// `steps` fixed steps of `method` over [0, t_end].
RunEnd fixed_steps(const Problem& p, const std::string& method, long steps) {
  const double h = p.t_end / static_cast<double>(steps);
  const auto t0 = std::chrono::steady_clock::now();
  Vector q;
  if (method.starts_with("energy-momentum")) {
    // "energy-momentum" or "energy-momentum compose=SCHEME" (003 §5–6; with constraints the
    // composition is of pairs of half steps, integrate/energy_momentum_composition.hpp).
    const auto at = method.find("compose=");
    StepCheckOptions check;
    check.enabled = false;
    kernel::KernelEnergyMomentumIntegrator em(
        *p.model, h, {}, check,
        at == std::string::npos ? std::vector<double>{} : kernel::composition_named(method.substr(at + 8)).gammas);
    em.start_from_velocity(p.q0, p.v0);
    for (long i = 0; i < steps; ++i) em.step();
    q = em.q();
  } else if (method == "vi-midpoint") {
    StepCheckOptions check;
    check.enabled = false;  // the cost of the rule itself
    kernel::KernelVariationalIntegrator vi(*p.model, kernel::Rule::kMidpoint, h, {}, DelForm::kMomentum, check);
    vi.start_from_velocity(p.q0, p.v0);
    for (long i = 0; i < steps; ++i) vi.step();
    q = vi.q();
  } else {
    auto vi = galerkin(p, method, h);
    for (long i = 0; i < steps; ++i) vi->step();
    q = vi->q();
  }
  return {q, steps, p.t_end, seconds_since(t0)};
}

/// An adaptive Runge–Kutta method at relative tolerance `tol` (absolute tol/100) to t_end, from a
/// first step `first_step`.
template <class Stepper>
RunEnd adaptive_steps(const Problem& p, double tol, double first_step) {
  const auto t0 = std::chrono::steady_clock::now();
  const kernel::KernelEulerLagrangeOde ode(*p.model, nullptr);
  Stepper rk(ode, first_step, RungeKuttaTolerances{tol, tol * 1e-2});
  rk.start_from_velocity(p.q0, p.v0);
  long steps = 0;
  while (rk.time() < p.t_end) rk.step_toward(p.t_end), ++steps;
  const double cpu = seconds_since(t0);
  return {Vector(rk.q()), steps, rk.time(), cpu};
}

Row fixed_step(const Problem& p, const std::string& method, double h, const Vector& q_ref) {
  const long steps = std::lround(p.t_end / h);
  const RunEnd end = fixed_steps(p, method, steps);
  return {p.name, method, p.t_end / static_cast<double>(steps), (end.q - q_ref).norm(), end.cpu_s, steps};
}

template <class Stepper>
Row adaptive(const Problem& p, const std::string& method, double tol, const Vector& q_ref) {
  const RunEnd end = adaptive_steps<Stepper>(p, tol, p.t_end / 1000);
  return {p.name, method, tol, (end.q - q_ref).norm(), end.cpu_s, end.steps};
}

/// The `dae` baseline (SUNDIALS IDA on the GGL form) at relative tolerance `tol` (absolute tol/100).
Row dae(const Problem& p, double tol, const Vector& q_ref) {
  const auto t0 = std::chrono::steady_clock::now();
  kernel::KernelDaeStepper ida(*p.model, p.t_end / 1000, kernel::KernelDaeStepper::Tolerances{tol, tol * 1e-2});
  ida.start_from_velocity(p.q0, p.v0);
  ida.step_toward(p.t_end);
  return {p.name, "dae", tol, (Vector(ida.q()) - q_ref).norm(), seconds_since(t0), ida.step_index()};
}

Problem kepler_problem(double e, int periods, std::vector<double> steps_per_period) {
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, e, q0, v0);
  const double period = 2 * M_PI, t_end = periods * period;
  for (double& s : steps_per_period) s /= period;
  return {"kepler-e" + format_number(e), kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0}), q0, v0, t_end,
          [e, t_end] { return Vector(systems::Kepler::exact_position(1.0, 1.0, e, t_end)); }, steps_per_period};
}

Problem three_body_problem() {
  Problem p{"three-body", kernel::ModelAdapter<systems::ThreeBody>::kernels(systems::ThreeBody{}),
            Eigen::Vector2d(0.5, 0.0), Eigen::Vector2d(0.0, 0.9), 50.0, nullptr, {5, 10, 20, 40, 80, 160, 320}};
  p.reference = [p] {
    const kernel::KernelEulerLagrangeOde ode(*p.model, nullptr);
    kernel::KernelRk78 rk(ode, 0.01, RungeKuttaTolerances{1e-14, 1e-16});
    rk.start_from_velocity(p.q0, p.v0);
    while (rk.time() < p.t_end) rk.step_toward(p.t_end);
    return Vector(rk.q());
  };
  return p;
}

/// 003's pattern-1 start of the double spherical pendulum, z from the constraints.
Problem double_spherical_problem() {
  const systems::DoubleSphericalPendulum m;
  Vector q0(6), v0(6);
  q0 << 2.82, 0.025, 0.0, 5.085, 0.105, 0.0;
  q0[2] = -std::sqrt(m.l1 * m.l1 - q0[0] * q0[0] - q0[1] * q0[1]);
  q0[5] = q0[2] - std::sqrt(m.l2 * m.l2 - std::pow(q0[3] - q0[0], 2) - std::pow(q0[4] - q0[1], 2));
  v0 << 3.381, 2.506, 0.0, 2.497, 10.495, 0.0;
  v0[2] = -(q0[0] * v0[0] + q0[1] * v0[1]) / q0[2];
  v0[5] = v0[2] - ((q0[3] - q0[0]) * (v0[3] - v0[0]) + (q0[4] - q0[1]) * (v0[4] - v0[1])) / (q0[5] - q0[2]);
  Problem p{"double-spherical-pendulum", kernel::ModelAdapter<systems::DoubleSphericalPendulum>::kernels(m), q0, v0,
            5.0, nullptr, {10, 16, 25, 50, 100, 200, 400}};  // the coarse two: kahan-li8 reaches the reference's 3e-13 by h = 0.04
  p.reference = [p] {
    const double h = 1.0 / (16 * 400);
    auto vi = galerkin(p, "vi-lobatto6", h);
    for (long i = 0, n = std::lround(p.t_end / h); i < n; ++i) vi->step();
    return Vector(vi->q());
  };
  return p;
}

// ---- Phase error over 10⁴ periods of the Kepler orbit e = 0.5 -----------------------------------
// The order-8 methods at several steps per period and rk78 (dopri5 for context) at several
// tolerances, each run's phase error at t_end against its CPU time: at the CPU time of rk78's best
// tolerance, is an order-8 method's phase error below rk78's, and where do the lines cross?

constexpr double kPhaseEccentricity = 0.5;

/// Periods of the phase-error runs: 10⁴, or MECHINT_HIGH_ORDER_PHASE_PERIODS (the test suite's
/// shorter run of the same methods, steps per period and tolerances).
int phase_periods() {
  const char* env = std::getenv("MECHINT_HIGH_ORDER_PHASE_PERIODS");
  if (env == nullptr || *env == '\0') return 10000;
  const std::string_view text(env);
  int n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc{} || end != text.data() + text.size() || n < 1 || n > 10000)
    throw InvalidInput("MECHINT_HIGH_ORDER_PHASE_PERIODS must be a whole number of periods from 1 to 10000, got " +
                       quote_for_message(text));
  return n;
}

struct PhaseRow {
  std::string method;
  double h_or_tol;
  long steps;
  double phase_error, position_error, cpu_s;
};

/// The exact position after the time n·h on the orbit of pericentre_start (a = μ = 1, period 2π),
/// from Kepler's equation (Kepler::exact_position) at the offset n·h − periods·2π: the orbit is
/// periodic, so it is the same point, and the offset, formed in double-double (the products exact
/// by fma, 2π as 2·M_PI plus its rounding 2.4492935982947064e-16; the difference exact by Sterbenz),
/// spares the reference the rounding of a time near 6e4 (ulp 7e-12, a phase of 2.5e-11 at pericentre).
VecD<2> kepler_exact_after(int periods, long n, double h) {
  constexpr double two_pi_hi = 2 * M_PI, two_pi_lo = 2.4492935982947064e-16;
  const double nd = static_cast<double>(n), pd = periods;
  const double nh = nd * h, nh_err = std::fma(nd, h, -nh);
  const double tp = pd * two_pi_hi, tp_err = std::fma(pd, two_pi_hi, -tp);
  const double offset = (nh - tp) + (nh_err - tp_err - pd * two_pi_lo);
  return systems::Kepler::exact_position(1.0, 1.0, kPhaseEccentricity, offset);
}

/// The along-orbit phase error: the angle between the computed and the exact position vectors, in [0, π].
double phase_angle(const Vector& q, const VecD<2>& q_ref) {
  return std::atan2(std::abs(q[0] * q_ref[1] - q[1] * q_ref[0]), q[0] * q_ref[0] + q[1] * q_ref[1]);
}

PhaseRow phase_fixed(const Problem& p, int periods, const std::string& method, int steps_per_period) {
  const long n = static_cast<long>(periods) * steps_per_period;
  const RunEnd end = fixed_steps(p, method, n);
  const double h = p.t_end / static_cast<double>(n);
  const VecD<2> q_ref = kepler_exact_after(periods, n, h);
  return {method, h, n, phase_angle(end.q, q_ref), (end.q - Vector(q_ref)).norm(), end.cpu_s};
}

template <class Stepper>
PhaseRow phase_adaptive(const Problem& p, int periods, const std::string& method, double tol) {
  // First step a thousandth of a period, whatever the run's length.
  const RunEnd end = adaptive_steps<Stepper>(p, tol, 2 * M_PI / 1000);
  const VecD<2> q_ref = kepler_exact_after(periods, 1, end.t);
  return {method, tol, end.steps, phase_angle(end.q, q_ref), (end.q - Vector(q_ref)).norm(), end.cpu_s};
}

/// One method's runs as a line of the log–log diagram: log CPU against log phase error, by CPU.
struct Line {
  std::vector<double> log_cpu, log_error;
};

Line line_of(const std::vector<PhaseRow>& rows, const std::string& method) {
  std::vector<std::pair<double, double>> pts;
  for (const PhaseRow& r : rows)
    if (r.method == method && r.phase_error > 0 && std::isfinite(r.phase_error) && r.cpu_s > 0)
      pts.emplace_back(std::log(r.cpu_s), std::log(r.phase_error));
  std::sort(pts.begin(), pts.end());
  Line l;
  for (const auto& [c, e] : pts) l.log_cpu.push_back(c), l.log_error.push_back(e);
  return l;
}

/// The line's log error at log CPU x, linear between its neighbouring points; none outside its CPU range.
std::optional<double> log_error_at(const Line& l, double x) {
  for (std::size_t i = 0; i + 1 < l.log_cpu.size(); ++i) {
    const double x0 = l.log_cpu[i], x1 = l.log_cpu[i + 1];
    if (x < x0 || x > x1) continue;
    if (x1 == x0) return std::min(l.log_error[i], l.log_error[i + 1]);
    return l.log_error[i] + (x - x0) / (x1 - x0) * (l.log_error[i + 1] - l.log_error[i]);
  }
  if (l.log_cpu.size() == 1 && x == l.log_cpu[0]) return l.log_error[0];
  return std::nullopt;
}

/// Where two lines cross (CPU s, phase error) over the CPU range both cover: both are linear between
/// consecutive abscissae of either, so each sign change of their difference there is one crossing.
std::vector<std::pair<double, double>> crossings(const Line& a, const Line& b) {
  std::vector<double> xs;
  for (const Line* l : {&a, &b})
    for (double x : l->log_cpu) xs.push_back(x);
  std::sort(xs.begin(), xs.end());
  std::vector<std::pair<double, double>> out;
  std::optional<double> x_prev, d_prev;
  for (double x : xs) {
    const auto ea = log_error_at(a, x), eb = log_error_at(b, x);
    if (!ea || !eb) continue;
    const double d = *ea - *eb;
    if (d_prev && ((*d_prev < 0) != (d < 0)) && d != *d_prev) {
      const double xc = *x_prev + (x - *x_prev) * (*d_prev / (*d_prev - d));
      out.emplace_back(std::exp(xc), std::exp(*log_error_at(b, xc)));
    }
    x_prev = x, d_prev = d;
  }
  return out;
}

/// Where two lines do not cross: which one lies below over the CPU range both cover, or that there is
/// none (then the CPU ranges of both), as a table cell; the same into `m["relative_to_rk78"]`.
std::string no_crossing(const Line& l, const Line& rk78, nlohmann::json& m) {
  std::ostringstream cell;
  if (l.log_cpu.empty() || rk78.log_cpu.empty()) {
    m["relative_to_rk78"] = "no runs";
    return "no runs";
  }
  const double lo = std::max(l.log_cpu.front(), rk78.log_cpu.front()), hi = std::min(l.log_cpu.back(), rk78.log_cpu.back());
  if (lo > hi) {
    m["relative_to_rk78"] = "no common CPU range";
    cell << "none: no common CPU range (its runs " << format_number(std::exp(l.log_cpu.front()), 3) << "–"
         << format_number(std::exp(l.log_cpu.back()), 3) << " s, rk78's " << format_number(std::exp(rk78.log_cpu.front()), 3)
         << "–" << format_number(std::exp(rk78.log_cpu.back()), 3) << " s)";
    return cell.str();
  }
  const double mid = (lo + hi) / 2;
  const bool below = *log_error_at(l, mid) < *log_error_at(rk78, mid);
  m["relative_to_rk78"] = below ? "below throughout the common CPU range" : "above throughout the common CPU range";
  cell << "none: " << (below ? "below" : "above") << " rk78's line throughout the common " << format_number(std::exp(lo), 3)
       << "–" << format_number(std::exp(hi), 3) << " s";
  return cell.str();
}

/// The smallest CPU time at which the line reaches `level` (linear between its points); none if it never does.
std::optional<double> cpu_to_reach(const Line& l, double level) {
  const double y = std::log(level);
  for (std::size_t i = 0; i < l.log_cpu.size(); ++i) {
    if (l.log_error[i] > y) continue;
    if (i == 0) return std::exp(l.log_cpu[0]);
    const double f = (l.log_error[i - 1] - y) / (l.log_error[i - 1] - l.log_error[i]);
    return std::exp(l.log_cpu[i - 1] + f * (l.log_cpu[i] - l.log_cpu[i - 1]));
  }
  return std::nullopt;
}

/// The verdict where rk78's best CPU time lies outside the method's CPU range, written as the table's
/// second and third cells: a cheapest run that costs more than rk78's best and still has a larger
/// phase error means not below (less CPU, along its line, gives no smaller error); a costliest run
/// that costs less and is already below means below; anything else is not measured (null).
nlohmann::json outside_range_verdict(const Line& l, const PhaseRow& best, std::ostream& rep) {
  const double c = std::log(best.cpu_s), e = std::log(best.phase_error);
  if (!l.log_cpu.empty() && c < l.log_cpu.front() && l.log_error.front() >= e) {
    rep << "— (below its CPU range) | not below: its cheapest run, " << format_number(std::exp(l.log_cpu.front()), 3)
        << " s, has " << format_number(std::exp(l.log_error.front()), 3) << " | ";
    return false;
  }
  if (!l.log_cpu.empty() && c > l.log_cpu.back() && l.log_error.back() < e) {
    rep << "— (above its CPU range) | below: its costliest run, " << format_number(std::exp(l.log_cpu.back()), 3)
        << " s, has " << format_number(std::exp(l.log_error.back()), 3) << " | ";
    return true;
  }
  rep << "— (outside its CPU range) | not measured | ";
  return nullptr;
}

/// The phase-error part of results.json and of report.md.
struct PhaseStudy {
  nlohmann::json json;
  std::string report;
};

const std::vector<std::string> kOrder8 = {"vi-gauss8", "vi-gauss8 newton=simplified", "compose=kahan-li8",
                                          "vi-trapezoid compose=kahan-li8"};

/// What the rows say about each order-8 method against rk78 at its best tolerance (the one with the
/// smallest phase error): the method's phase error at that CPU time (interpolated in log–log), where
/// its line crosses rk78's, and the CPU time at which it first reaches rk78's best phase error.
PhaseStudy compare_with_rk78(const std::vector<PhaseRow>& rows, int periods) {
  PhaseStudy s;
  std::ostringstream rep;
  const PhaseRow* best = nullptr;
  for (const PhaseRow& r : rows)
    if (r.method == "rk78" && std::isfinite(r.phase_error) && (best == nullptr || r.phase_error < best->phase_error)) best = &r;
  if (best == nullptr) {
    rep << "No rk78 run finished: nothing to compare.\n";
    s.report = rep.str();
    return s;
  }
  s.json["rk78_best"] = {{"tol", best->h_or_tol}, {"phase_error", best->phase_error}, {"cpu_s", best->cpu_s}};
  rep << "rk78's best tolerance is " << format_number(best->h_or_tol, 3) << ": phase error "
      << format_number(best->phase_error, 3) << " in " << format_number(best->cpu_s, 3) << " s.\n\n"
      << "| method | phase error at rk78's best CPU time | below rk78's best? | lines cross at (CPU s, phase error) | "
         "CPU s to reach rk78's best phase error |\n|---|---|---|---|---|\n";
  const Line rk78 = line_of(rows, "rk78");
  for (const std::string& method : kOrder8) {
    const Line l = line_of(rows, method);
    nlohmann::json m;
    rep << "| " << method << " | ";
    if (const auto e = log_error_at(l, std::log(best->cpu_s))) {
      const double at = std::exp(*e);
      const bool below = at < best->phase_error;
      m["phase_error_at_rk78_best_cpu"] = at;
      m["below_rk78_best"] = below;
      rep << format_number(at, 3) << " | " << (below ? "below" : "not below") << " (" << format_number(at / best->phase_error, 2)
          << "×) | ";
    } else {
      m["phase_error_at_rk78_best_cpu"] = nullptr;
      m["below_rk78_best"] = outside_range_verdict(l, *best, rep);
    }
    m["crossings"] = nlohmann::json::array();
    std::string sep;
    for (const auto& [cpu, err] : crossings(l, rk78)) {
      m["crossings"].push_back({{"cpu_s", cpu}, {"phase_error", err}});
      rep << sep << "(" << format_number(cpu, 3) << ", " << format_number(err, 3) << ")";
      sep = "; ";
    }
    if (sep.empty()) rep << no_crossing(l, rk78, m);
    rep << " | ";
    if (const auto c = cpu_to_reach(l, best->phase_error)) {
      m["cpu_s_to_reach_rk78_best"] = *c;
      rep << format_number(*c, 3) << " (" << format_number(*c / best->cpu_s, 2) << "× rk78's)";
    } else {
      m["cpu_s_to_reach_rk78_best"] = nullptr;
      rep << "never (in these runs)";
    }
    rep << " |\n";
    s.json["comparison"][method] = m;
  }
  rep << "\nInterpolated linearly in log CPU against log phase error between a method's neighbouring runs; "
         "one run on a shared machine, so the CPU times, and with them the crossings, move from run to run "
         "(the errors do not). Over "
      << periods << " periods.\n";
  s.report = rep.str();
  return s;
}

/// Kepler e = 0.5 over `periods` periods: the phase error of every run, into phase_error.csv, results.json
/// and the report. Budget (2-core machine, one core): about 60 s over 10⁴ periods, measured
/// (docs/methods.md); the step counts are chosen for it, from coarse to the round-off floor.
PhaseStudy phase_error_study(const app::ExperimentContext& ctx, int periods) {
  ctx.log << "  phase error over " << periods << " periods" << std::endl;
  const Problem p = kepler_problem(kPhaseEccentricity, periods, {});
  // Steps per period of each order-8 method, chosen for a budget of about 60 s over 10⁴ periods on
  // one core of a 2-core machine (measured per step: vi-gauss8 ≈ 4 µs, compose=kahan-li8 ≈ 10 µs,
  // vi-trapezoid compose=kahan-li8, explicit, ≈ 1.2 µs; rk78 ≈ 2.5 µs, about 2–3 s at its best
  // tolerance). From coarse (35: vi-gauss8 is off the orbit there, phase 0.6) to the round-off floor
  // (a phase of 1e-7 from about 1.4·10⁶ steps on) for vi-gauss8 and the explicit composition;
  // compose=kahan-li8 costs about 13 s for its two runs, above rk78's CPU range, and cannot reach
  // the floor within the budget. 70, 100 and 140 of the explicit composition, 50 and 100 of
  // vi-gauss8 and 50 and 70 of compose=kahan-li8 are the steps at which
  // tests/test_high_order_experiment.cpp measures the order over 100 periods. vi-gauss8 runs twice:
  // with full Newton (the default) and with simplified Newton, whose kept factorization makes a
  // step about three times cheaper on Kepler (about 0.8 µs: about 6 s for its six runs).
  // compose=kahan-li8 changes its sub-step size 17 times a step, so a kept factorization gains it
  // little (0.8×) and it runs with full Newton.
  const std::vector<std::pair<std::string, std::vector<int>>> fixed = {
      {"vi-gauss8", {35, 50, 100, 140}},
      {"vi-gauss8 newton=simplified", {35, 50, 70, 100, 140, 200}},
      {"compose=kahan-li8", {50, 70}},
      {"vi-trapezoid compose=kahan-li8", {35, 50, 70, 100, 140, 200, 280}}};
  std::vector<PhaseRow> rows;
  for (const auto& [method, counts] : fixed)
    for (int per_period : counts) {
      try {
        rows.push_back(phase_fixed(p, periods, method, per_period));
      } catch (const NumericalFailure& e) {
        ctx.log << "    " << method << " at " << per_period << " steps per period: " << e.what() << std::endl;
      } catch (const DomainError& e) {
        ctx.log << "    " << method << " at " << per_period << " steps per period: " << e.what() << std::endl;
      }
    }
  for (double tol : {1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14})
    rows.push_back(phase_adaptive<kernel::KernelRk78>(p, periods, "rk78", tol));
  // dopri5 for context only: at 1e-12 it takes 6·10⁶ steps (7 s) for a phase error of 2e-3.
  for (double tol : {1e-8, 1e-10})
    rows.push_back(phase_adaptive<kernel::KernelDopri5>(p, periods, "dopri5", tol));

  std::ostringstream csv, table;
  csv << "method,h_or_tol,steps,phase_error,position_error,cpu_s\n";
  table << "| method | h or tol | steps | phase error | position error | CPU s |\n|---|---|---|---|---|---|\n";
  nlohmann::json json_rows = nlohmann::json::array();
  for (const PhaseRow& r : rows) {
    csv << r.method << "," << format_number(r.h_or_tol, 17) << "," << r.steps << "," << format_number(r.phase_error, 17) << ","
        << format_number(r.position_error, 17) << "," << format_number(r.cpu_s, 6) << "\n";
    table << "| " << r.method << " | " << format_number(r.h_or_tol, 3) << " | " << r.steps << " | "
          << format_number(r.phase_error, 3) << " | " << format_number(r.position_error, 3) << " | "
          << format_number(r.cpu_s, 3) << " |\n";
    json_rows.push_back({{"method", r.method}, {"h_or_tol", r.h_or_tol}, {"steps", r.steps}, {"phase_error", r.phase_error},
                         {"position_error", r.position_error}, {"cpu_s", r.cpu_s}});
  }
  app::write_text_atomically((ctx.out_dir / "phase_error.csv").string(), csv.str());

  PhaseStudy s = compare_with_rk78(rows, periods);
  s.json["periods"] = periods;
  s.json["eccentricity"] = kPhaseEccentricity;
  s.json["rows"] = json_rows;
  s.report = "\n## Phase error over " + std::to_string(periods) +
             " periods (Kepler e = 0.5) at equal CPU time\n\n"
             "The along-orbit phase error at t_end: the angle between the computed and the exact position "
             "vectors (closed-form orbit, Kepler's equation), in [0, π]; the position error |q − q_exact| "
             "beside it. The order-8 methods at several steps per period (h = 2π/steps per period), rk78 "
             "and dopri5 at several rtol (atol = rtol/100). CPU times are of this machine and run.\n\n" +
             table.str() + "\n" + s.report;
  return s;
}

void run(const app::ExperimentContext& ctx) {
  const int phase_study_periods = phase_periods();  // a bad value is refused before any work
  const std::vector<std::string> unconstrained = {"vi-midpoint", "vi-gauss4", "vi-gauss6", "vi-gauss8", "vi-lobatto4",
                                                  "vi-lobatto6", "compose=yoshida4", "compose=kahan-li6",
                                                  "compose=kahan-li8"};
  const std::vector<std::string> constrained = {"vi-midpoint",
                                                "vi-lobatto4",
                                                "vi-lobatto6",
                                                "energy-momentum",
                                                "energy-momentum compose=yoshida4",
                                                "energy-momentum compose=kahan-li6",
                                                "energy-momentum compose=kahan-li8"};
  std::vector<Problem> problems = {kepler_problem(0.5, 100, {25, 50, 100, 200, 400, 800}),
                                   kepler_problem(0.9, 100, {100, 200, 400, 800, 1600, 3200}), three_body_problem(),
                                   double_spherical_problem()};
  std::vector<Row> rows;
  for (const Problem& p : problems) {
    ctx.log << "  " << p.name << std::endl;
    const Vector q_ref = p.reference();
    const bool has_constraints = p.model->num_constraints() > 0;
    for (const std::string& method : has_constraints ? constrained : unconstrained)
      for (double per_unit : p.steps_per_unit) {
        try {
          rows.push_back(fixed_step(p, method, 1.0 / per_unit, q_ref));
        } catch (const NumericalFailure&) {
          // A step too large for Newton at this h: no point on the diagram.
        } catch (const DomainError&) {
          // A pericentre passage the step does not resolve (Kepler's validate_step): no point either.
        }
      }
    if (!has_constraints)
      for (double tol : {1e-6, 1e-8, 1e-10, 1e-12, 1e-13}) {
        rows.push_back(adaptive<kernel::KernelDopri5>(p, "dopri5", tol, q_ref));
        rows.push_back(adaptive<kernel::KernelRk78>(p, "rk78", tol, q_ref));
      }
    else
      for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) rows.push_back(dae(p, tol, q_ref));
  }

  // Energy over 10⁶ steps of the e = 0.5 orbit at 50 steps per period: the largest error over the
  // first and the last tenth (a drift would make the second about ten times the first).
  ctx.log << "  energy over 1e6 steps" << std::endl;
  const Problem kepler = problems[0];
  const long long_steps = 1000000;
  const double h = 2 * M_PI / 50;
  std::ostringstream energy_csv;
  energy_csv << "method,step,energy_error\n";
  nlohmann::json energy_json;
  for (const std::string& method : unconstrained) {
    if (method == "vi-midpoint") continue;  // the second-order baseline of core-convergence
    auto vi = galerkin(kepler, method, h);
    const double e0 = vi->energy();
    double first = 0.0, last = 0.0;
    for (long i = 1; i <= long_steps; ++i) {
      vi->step();
      if (i % 1000 != 0) continue;
      const double err = std::abs(vi->energy() - e0);
      if (i <= long_steps / 10) first = std::max(first, err);
      if (i > long_steps - long_steps / 10) last = std::max(last, err);
      energy_csv << method << "," << i << "," << err << "\n";
    }
    energy_json[method] = {{"first_tenth", first}, {"last_tenth", last}};
  }

  const PhaseStudy phase = phase_error_study(ctx, phase_study_periods);

  nlohmann::json j;
  std::ostringstream csv, table;
  csv << "problem,method,h_or_tol,steps,error,cpu_s\n";
  table << "| problem | method | h or tol | steps | error at t_end | CPU s |\n|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    csv << r.problem << "," << r.method << "," << format_number(r.h_or_tol, 17) << "," << r.steps << ","
        << format_number(r.error, 17) << "," << format_number(r.cpu_s, 6) << "\n";
    table << "| " << r.problem << " | " << r.method << " | " << format_number(r.h_or_tol, 3) << " | " << r.steps
          << " | " << format_number(r.error, 3) << " | " << format_number(r.cpu_s, 3) << " |\n";
    j["rows"].push_back({{"problem", r.problem}, {"method", r.method}, {"h_or_tol", r.h_or_tol}, {"steps", r.steps},
                         {"error", r.error}, {"cpu_s", r.cpu_s}});
  }
  j["energy_over_1e6_steps"] = energy_json;
  j["phase_error"] = phase.json;
  std::ostringstream report;
  report << "# Methods of higher order: work against precision\n\n"
            "Error in q at t_end against CPU time. Kepler (100 periods): the closed-form orbit; three-body "
            "(t = 50): rk78 at rtol 1e-14; double spherical pendulum (t = 5): vi-lobatto6 at a 16 times "
            "smaller step. Fixed-step methods at several h, dopri5 and rk78 at rtol 1e-6 … 1e-13, on the "
            "constrained double spherical pendulum dae (IDA) at rtol 1e-4 … 1e-10 (atol = rtol/100); "
            "energy-momentum's compositions there are of pairs of half steps (docs/methods.md). CPU times are of this machine and run; compare them within one run.\n\n"
         << table.str()
         << "\n## Energy over 10^6 steps (Kepler e = 0.5, 50 steps per period)\n\n"
            "| method | max |E − E0|, first tenth | last tenth |\n|---|---|---|\n";
  for (const auto& [method, v] : energy_json.items())
    report << "| " << method << " | " << format_number(v["first_tenth"].get<double>(), 3) << " | "
           << format_number(v["last_tenth"].get<double>(), 3) << " |\n";
  report << "\nWithout drift, the last tenth's largest error is about the first's; a larger one is a drift or "
            "a slow oscillation of the energy error (kahan-li8 at this step has one of about 2.5e6 steps: "
            "docs/methods.md), which only a longer run tells apart.\n"
         << phase.report;
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");
  app::write_text_atomically((ctx.out_dir / "work_precision.csv").string(), csv.str());
  app::write_text_atomically((ctx.out_dir / "energy.csv").string(), energy_csv.str());
  if (app::draw_figures("high_order.py", ctx.out_dir, ctx.log))
    report << "\n![work against precision](work_precision.png)\n\n![energy over 1e6 steps](energy.png)\n\n"
              "![phase error against CPU time](phase_error.png)\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace high_order_experiment

app::ExperimentEntry high_order_entry() {
  return {"high-order",
          "methods of order 4-8 (Galerkin, Lobatto, compositions) against dopri5/rk78: work-precision on Kepler, "
          "three-body, double spherical pendulum; energy over 1e6 steps; Kepler phase error over 1e4 periods vs rk78",
          high_order_experiment::run};
}

}  // namespace mechint::experiments
