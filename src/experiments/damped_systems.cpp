// `mechint reproduce damped-systems`: 001 §1 says that a discretisation of the Lagrange–d'Alembert
// principle gives integrators for dissipative systems "that get the energy decay correct, even over
// long integration runs". Measured here: the energy of the forced variational integrators
// (vi-midpoint, vi-trapezoid; docs/forces.md) against the exact decay and against RK4 at the same
// step, 10 steps per period, over runs in which the energy falls by about e^{-10}.
//
// (1) Damped harmonic oscillator, m = k = 1, damping ratio ζ = 1e-3 (c = 2ζ): the exact energy from
//     the closed form; energy decay rate c/m. The same runs at ζ = 1e-2 and 1e-4 (each over 0.8/ζ
//     periods) show which error scales with the physics and which does not.
// (2) Damped pendulum, m = l = 1, g = 9.81, θ0 = 1 rad from rest, c = 0.01: the reference is rk78 at
//     rtol = atol = 1e-12 on the forced Euler–Lagrange ODE (checked against 1e-11).
//
// The decay rate is the least-squares slope of −log E over every step (as in tests/test_forced_vi.cpp):
// insensitive to the oscillation of E within a period.
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/damped_pendulum.hpp"

namespace mechint::experiments {
namespace damped_systems_experiment {

using kernel::Vector;
using systems::DampedHarmonicOscillator;
using systems::DampedPendulum;

constexpr int kStepsPerPeriod = 10;
constexpr double kFigureZeta = 1e-3;                       // oscillator of the figure
constexpr std::array<double, 3> kZetas = {1e-2, 1e-3, 1e-4};  // oscillator rows
constexpr double kZetaPeriods = 0.8;                       // periods = kZetaPeriods / ζ: E falls by e^{-10}
constexpr double kPendulumDamping = 0.01, kPendulumTheta0 = 1.0;
constexpr long kPendulumPeriods = 500;                     // small-oscillation periods: E falls by ≈ e^{-10}
constexpr double kReferenceTolerance = 1e-12, kCheckTolerance = 1e-11;

/// Least-squares slope of log E against t: −(decay rate).
struct DecayFit {
  double st = 0, se = 0, stt = 0, ste = 0;
  long count = 0;
  void add(double t, double energy) {
    const double e = std::log(energy);
    st += t, se += e, stt += t * t, ste += t * e, ++count;
  }
  double rate() const { return -(count * ste - st * se) / (count * stt - st * st); }
};

/// One method's run: its fitted decay rate, energy at t_end, CPU time and (if kept) E at every step.
struct Run {
  std::string method;
  double decay_rate = 0, final_energy = 0, cpu_s = 0;
  std::vector<double> energy;
};

/// Runs `s` (started) through the run loop, observing `energy_of(s)` at every step.
template <class S, class EnergyOf>
Run observe(std::string method, S& s, const OutputSchedule& schedule, EnergyOf energy_of, bool keep_series) {
  Run r;
  r.method = std::move(method);
  DecayFit fit;
  if (keep_series) r.energy.reserve(schedule.steps() + 1);
  const auto t0 = std::chrono::steady_clock::now();
  integrate(s, schedule, [&](const auto& state) {
    const double e = energy_of(state);
    if (!(e > 0.0) || !std::isfinite(e))
      throw NumericalFailure("damped-systems: " + r.method + " energy " + format_number(e) + " at t = " +
                             format_number(output_time(state, schedule)));
    fit.add(output_time(state, schedule), e);
    if (keep_series) r.energy.push_back(e);
    r.final_energy = e;
  });
  r.cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.decay_rate = fit.rate();
  return r;
}

/// A row of results.json.
struct Row {
  std::string system, method;
  double zeta = 0, h = 0, t_end = 0, decay_rate = 0, exact_decay_rate = 0, final_energy_ratio = 0, cpu_s = 0;
  double linear_theory_decay_rate = NAN;  ///< oscillator: from the eigenvalues of the one-step map
  double decay_rate_error() const { return decay_rate / exact_decay_rate - 1.0; }
  double final_energy_error() const { return final_energy_ratio - 1.0; }
};

// ---- (1) damped harmonic oscillator -------------------------------------------------------------

/// The energy decay rate −2 ln|z|/h of each method's one-step map on m q̈ + c q̇ + k q = 0 (m = k = 1),
/// z its eigenvalue (docs/forces.md): midpoint — the bilinear transform of s = −γ + iω_d; trapezoid —
/// |z|² = (1 − γh)/(1 + γh); RK4 — its stability polynomial at hs.
double linear_theory_rate(const std::string& method, const DampedHarmonicOscillator& m, double h) {
  const double gamma = 0.5 * m.damping / m.mass;
  const std::complex<double> w = h * std::complex<double>(-gamma, m.damped_frequency());
  if (method == "vi-trapezoid") return -std::log((1.0 - gamma * h) / (1.0 + gamma * h)) / h;
  const std::complex<double> z =
      method == "vi-midpoint" ? (1.0 + 0.5 * w) / (1.0 - 0.5 * w) : 1.0 + w + w * w / 2.0 + w * w * w / 6.0 + w * w * w * w / 24.0;
  return -2.0 * std::log(std::abs(z)) / h;
}

struct OscillatorResult {
  std::vector<Row> rows;
  std::vector<double> t, exact;
  std::vector<Run> runs;  ///< of the figure's ζ
};

void oscillator(double zeta, bool keep_series, OscillatorResult& out) {
  const DampedHarmonicOscillator model{.mass = 1.0, .stiffness = 1.0, .damping = 2.0 * zeta};
  const double h = 2.0 * M_PI / model.damped_frequency() / kStepsPerPeriod;
  const long periods = std::lround(kZetaPeriods / zeta);
  const OutputSchedule schedule{.h = h, .t_end = static_cast<double>(periods * kStepsPerPeriod) * h, .output_every = 0.0};
  const Vector q0 = Vector::Constant(1, 1.0), v0 = Vector::Zero(1);
  const auto energy_of = [](const auto& s) { return s.energy(); };
  // The kernels that `mechint run` steps this built-in on (kernel/model_adapter.hpp, kernels_for_runs):
  // each rule's D1, D2, D12 Ld and discrete forces f⁻, f⁺ by AD of that rule's Ld.
  const auto kernels = kernel::ModelAdapter<DampedHarmonicOscillator>::kernels_for_runs(model);
  std::vector<Run> runs;
  {
    kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, h);
    vi.start_from_velocity(q0, v0);
    runs.push_back(observe("vi-midpoint", vi, schedule, energy_of, keep_series));
  }
  {
    kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kTrapezoid, h);
    vi.start_from_velocity(q0, v0);
    runs.push_back(observe("vi-trapezoid", vi, schedule, energy_of, keep_series));
  }
  {
    kernel::KernelRk4 rk(kernel::KernelEulerLagrangeOde(*kernels, nullptr), h);
    rk.start_from_velocity(q0, v0);
    runs.push_back(observe("rk4", rk, schedule, energy_of, keep_series));
  }
  // The exact energy from the closed form: q(t) of the header, q̇(t) its derivative.
  const double gamma = 0.5 * model.damping / model.mass, wd = model.damped_frequency();
  const double a = q0[0], b = (v0[0] + gamma * q0[0]) / wd;
  const auto exact_energy = [&](double t) {
    const double q = model.exact_position(q0[0], v0[0], t);
    const double c = std::cos(wd * t), s = std::sin(wd * t);
    const double v = std::exp(-gamma * t) * (-gamma * (a * c + b * s) + wd * (b * c - a * s));
    return 0.5 * model.mass * v * v + 0.5 * model.stiffness * q * q;
  };
  const double e_end = exact_energy(schedule.t_end);
  for (const auto& r : runs)
    out.rows.push_back({.system = "damped-oscillator", .method = r.method, .zeta = zeta, .h = h,
                        .t_end = schedule.t_end, .decay_rate = r.decay_rate,
                        .exact_decay_rate = model.energy_decay_rate(), .final_energy_ratio = r.final_energy / e_end,
                        .cpu_s = r.cpu_s, .linear_theory_decay_rate = linear_theory_rate(r.method, model, h)});
  if (keep_series) {
    for (long k = 0; k <= schedule.steps(); ++k) {
      out.t.push_back(schedule.time_at(k));
      out.exact.push_back(exact_energy(schedule.time_at(k)));
    }
    out.runs = std::move(runs);
  }
}

// ---- (2) damped pendulum ----------------------------------------------------------------------

struct PendulumResult {
  std::vector<Row> rows;
  std::vector<double> t;
  std::vector<Run> runs;  ///< reference first
  double reference_uncertainty = 0;  ///< max over t of |E(1e-11)/E(1e-12) − 1|
  long reference_steps = 0;
};

PendulumResult pendulum() {
  const DampedPendulum model{.mass = 1.0, .length = 1.0, .gravity = 9.81, .damping = kPendulumDamping};
  const double h = 2.0 * M_PI / std::sqrt(model.gravity / model.length) / kStepsPerPeriod;
  const OutputSchedule schedule{.h = h, .t_end = static_cast<double>(kPendulumPeriods * kStepsPerPeriod) * h,
                                .output_every = 0.0};
  const Vector q0 = Vector::Constant(1, kPendulumTheta0), v0 = Vector::Zero(1);
  // Energy above the hanging rest position (E = −m g l there), so that log E is defined.
  const double rest = model.mass * model.gravity * model.length;
  const auto energy_of = [rest](const auto& s) { return s.energy() + rest; };
  // The torque u at the pivot stays zero (no control law, none set on the VIs): only the damping acts.
  const auto kernels = kernel::ModelAdapter<DampedPendulum>::kernels_for_runs(model);
  PendulumResult out;
  const auto reference = [&](double tol, bool keep) {
    kernel::KernelRk78 rk(kernel::KernelEulerLagrangeOde(*kernels, nullptr), 1e-3, {tol, tol});
    rk.start_from_velocity(q0, v0);
    Run r = observe("reference", rk, schedule, energy_of, keep);
    out.reference_steps = rk.step_index();
    return r;
  };
  const Run check = reference(kCheckTolerance, true);
  out.runs.push_back(reference(kReferenceTolerance, true));
  const Run& ref = out.runs.front();
  for (std::size_t k = 0; k < ref.energy.size(); ++k)
    out.reference_uncertainty = std::max(out.reference_uncertainty, std::abs(check.energy[k] / ref.energy[k] - 1.0));
  {
    kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, h);
    vi.start_from_velocity(q0, v0);
    out.runs.push_back(observe("vi-midpoint", vi, schedule, energy_of, true));
  }
  {
    kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kTrapezoid, h);
    vi.start_from_velocity(q0, v0);
    out.runs.push_back(observe("vi-trapezoid", vi, schedule, energy_of, true));
  }
  {
    kernel::KernelRk4 rk(kernel::KernelEulerLagrangeOde(*kernels, nullptr), h);
    rk.start_from_velocity(q0, v0);
    out.runs.push_back(observe("rk4", rk, schedule, energy_of, true));
  }
  for (const auto& r : out.runs)
    out.rows.push_back({.system = "damped-pendulum", .method = r.method, .zeta = NAN, .h = h, .t_end = schedule.t_end,
                        .decay_rate = r.decay_rate, .exact_decay_rate = ref.decay_rate,
                        .final_energy_ratio = r.final_energy / ref.final_energy, .cpu_s = r.cpu_s});
  out.rows.front().method = "rk78-reference";
  for (long k = 0; k <= schedule.steps(); ++k) out.t.push_back(schedule.time_at(k));
  return out;
}

// ---- output -----------------------------------------------------------------------------------

/// t, the exact or reference energy, each method's energy: one row per step.
void write_series(const app::ExperimentContext& ctx, const std::string& file, const std::vector<double>& t,
                  const std::string& standard, const std::vector<double>& standard_energy, const std::vector<Run>& runs) {
  std::ostringstream csv;
  csv.precision(10);
  csv << "t," << standard;
  for (const auto& r : runs) csv << "," << r.method;
  csv << "\n";
  for (std::size_t k = 0; k < t.size(); ++k) {
    csv << t[k] << "," << standard_energy[k];
    for (const auto& r : runs) csv << "," << r.energy[k];
    csv << "\n";
  }
  app::write_text_atomically((ctx.out_dir / file).string(), csv.str());
}

nlohmann::json row_json(const Row& r) {
  nlohmann::json j = {{"system", r.system},
                      {"method", r.method},
                      {"h", r.h},
                      {"steps_per_period", kStepsPerPeriod},
                      {"t_end", r.t_end},
                      {"decay_rate", r.decay_rate},
                      {"exact_decay_rate", r.exact_decay_rate},
                      {"decay_rate_error", r.decay_rate_error()},
                      {"final_energy_error", r.final_energy_error()},
                      {"final_energy_ratio", r.final_energy_ratio},
                      {"cpu_s", r.cpu_s}};
  if (std::isfinite(r.zeta)) j["zeta"] = r.zeta;
  if (std::isfinite(r.linear_theory_decay_rate)) j["linear_theory_decay_rate"] = r.linear_theory_decay_rate;
  return j;
}

void run(const app::ExperimentContext& ctx) {
  ctx.log << "  damped oscillator, zeta = 1e-2, 1e-3, 1e-4" << std::endl;
  OscillatorResult osc;
  for (double zeta : kZetas) oscillator(zeta, zeta == kFigureZeta, osc);
  ctx.log << "  damped pendulum (reference rk78 at tolerance " << format_number(kReferenceTolerance, 1) << ")"
          << std::endl;
  const PendulumResult pend = pendulum();

  nlohmann::json j;
  j["steps_per_period"] = kStepsPerPeriod;
  j["decay_rate"] = "least-squares slope of -log E over every step";
  j["damped_oscillator"] = {{"mass", 1.0}, {"stiffness", 1.0}, {"zeta", kZetas}, {"figure_zeta", kFigureZeta},
                            {"q0", 1.0}, {"v0", 0.0}, {"periods", "0.8 / zeta"},
                            {"exact", "closed form; decay rate c/m"}};
  j["damped_pendulum"] = {{"mass", 1.0}, {"length", 1.0}, {"gravity", 9.81}, {"damping", kPendulumDamping},
                          {"theta0", kPendulumTheta0}, {"dtheta0", 0.0}, {"periods", kPendulumPeriods},
                          {"small_oscillation_decay_rate", kPendulumDamping},
                          {"reference", "rk78 at rtol = atol = 1e-12"},
                          {"reference_uncertainty", pend.reference_uncertainty},
                          {"reference_steps", pend.reference_steps},
                          {"energy", "E + m g l (zero at the hanging rest)"}};
  for (const auto& r : osc.rows) j["rows"].push_back(row_json(r));
  for (const auto& r : pend.rows) j["rows"].push_back(row_json(r));
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");

  write_series(ctx, "damped_oscillator_energy.csv", osc.t, "exact", osc.exact, osc.runs);
  write_series(ctx, "damped_pendulum_energy.csv", pend.t, "reference", pend.runs.front().energy,
               std::vector<Run>(pend.runs.begin() + 1, pend.runs.end()));

  const auto pct = [](double x) { return format_number(100.0 * x, 3) + " %"; };
  const auto find = [](const std::vector<Row>& rows, const std::string& method, double zeta) {
    for (const auto& row : rows)
      if (row.method == method && (std::isnan(zeta) || row.zeta == zeta)) return row;
    return Row{};
  };
  const Row mid = find(osc.rows, "vi-midpoint", kFigureZeta), trap = find(osc.rows, "vi-trapezoid", kFigureZeta),
            rk = find(osc.rows, "rk4", kFigureZeta);
  const Row rk_small = find(osc.rows, "rk4", 1e-4), rk_large = find(osc.rows, "rk4", 1e-2);
  const Row pmid = find(pend.rows, "vi-midpoint", NAN), ptrap = find(pend.rows, "vi-trapezoid", NAN),
            prk = find(pend.rows, "rk4", NAN);
  const double b2 = std::pow(M_PI / kStepsPerPeriod, 2);  // (ω_d h/2)² at 10 steps per damped period

  std::ostringstream r;
  r << "# Energy decay of forced variational integrators (001 §1)\n\n"
       "001 §1: \"using a discretization of the Lagrange-d'Alembert principle, one can also produce algorithms "
       "for dissipative or forced systems that get the energy decay correct, even over long integration runs.\" "
       "Measured: the energy of the forced variational integrators `vi-midpoint` and `vi-trapezoid` "
       "(docs/forces.md) against the exact decay and against `rk4` at the same step, "
    << kStepsPerPeriod
    << " steps per period, over runs in which the energy falls by about e^-10.\n\n"
       "- decay rate: the least-squares slope of −log E over every step (insensitive to E's oscillation "
       "within a period); rate error: decay rate / exact (reference) rate − 1;\n"
       "- final energy error: E(t_end)/E_exact(t_end) − 1 at the last step. For the variational integrators it "
       "includes the bounded oscillation of their energy within a period (up to about 10 % at 10 steps "
       "per period, the same without damping: the band in the figure), which does not grow; what grows is the rate error times t_end.\n\n"
       "## (1) Damped harmonic oscillator, m = k = 1, c = 2ζ, q0 = 1 from rest\n\n"
       "h = 2π/(10 ω_d); the run covers 0.8/ζ damped periods. Exact: the closed form of "
       "`damped_harmonic_oscillator.hpp`, decay rate c/m = 2ζ. 'Theory' is the rate −2 ln|z|/h of the "
       "eigenvalue z of each method's one-step map on this linear equation (midpoint: bilinear transform of "
       "−γ ± iω_d; trapezoid: |z|² = (1 − γh)/(1 + γh); rk4: its stability polynomial at h(−γ ± iω_d)).\n\n"
       "| ζ | method | t_end | decay rate | exact c/m | theory | rate error | final energy error | cpu_s |\n"
       "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : osc.rows)
    r << "| " << format_number(row.zeta, 2) << " | " << row.method << " | " << format_number(row.t_end, 5) << " | "
      << format_number(row.decay_rate, 5) << " | " << format_number(row.exact_decay_rate, 5) << " | "
      << format_number(row.linear_theory_decay_rate, 5) << " | " << format_number(row.decay_rate_error(), 3) << " | "
      << format_number(row.final_energy_error(), 3) << " | " << format_number(row.cpu_s, 3) << " |\n";
  r << "\nMeasured and theoretical rates agree to the fit's residue (relative 1e-5 or less). At ζ = "
    << format_number(kFigureZeta, 2) << " (the figure):\n\n"
    << "- vi-trapezoid decays at the exact rate (error " << format_number(trap.decay_rate_error(), 2)
    << "): its forced DEL equation is central differences with centred damping, whose eigenvalues have the "
       "product (1 − γh)/(1 + γh) whatever k is — exact up to O((γh)²).\n"
    << "- vi-midpoint decays " << pct(-mid.decay_rate_error())
    << " too slowly: its forced DEL equation is the bilinear (Tustin) transform of m q̈ + c q̇ + k q = 0, "
       "which divides the rate by 1 + (ω_d h/2)² (predicted " << pct(b2 / (1.0 + b2))
    << "), an O(h²) error that is a fixed fraction of the physical rate, the same at every ζ.\n"
    << "- rk4 decays " << pct(rk.decay_rate_error()) << " too fast. Its excess, "
    << format_number(rk.decay_rate - rk.exact_decay_rate, 3)
    << " per unit time, is its own numerical dissipation (to leading order (ω h)⁶/72 per step), nearly the "
       "same whatever the damping ("
    << format_number(rk_large.decay_rate - rk_large.exact_decay_rate, 3) << " at ζ = 1e-2, "
    << format_number(rk_small.decay_rate - rk_small.exact_decay_rate, 3)
    << " at ζ = 1e-4): " << pct(rk_large.decay_rate_error()) << " of the physical rate at ζ = 1e-2, "
    << pct(rk_small.decay_rate_error()) << " at ζ = 1e-4, where rk4's energy at t_end is "
    << format_number(rk_small.final_energy_ratio, 2) << " times the exact one.\n\n";
  r << "## (2) Damped pendulum, m = l = 1, g = 9.81, c = " << format_number(kPendulumDamping, 3) << ", θ0 = "
    << format_number(kPendulumTheta0, 3) << " rad from rest\n\n"
    << "h = 2π/(10 √(g/l)) (10 steps per small-oscillation period), " << kPendulumPeriods
    << " such periods. Energy measured from the hanging rest, E + m g l. Reference: rk78 at rtol = atol = 1e-12 on "
       "the forced Euler–Lagrange ODE, sampled at every step ("
    << pend.reference_steps << " accepted steps); its energy differs from the 1e-11 run by at most "
    << format_number(pend.reference_uncertainty, 2)
    << " relative. The rate is not constant (it rises towards c/(m l²) = " << format_number(kPendulumDamping, 3)
    << " as the amplitude falls); every method's rate is fitted the same way over the same samples.\n\n"
       "| method | t_end | decay rate | reference rate | rate error | final energy error | cpu_s |\n"
       "|---|---|---|---|---|---|---|\n";
  for (const auto& row : pend.rows)
    r << "| " << row.method << " | " << format_number(row.t_end, 5) << " | " << format_number(row.decay_rate, 5)
      << " | " << format_number(row.exact_decay_rate, 5) << " | " << format_number(row.decay_rate_error(), 3) << " | "
      << format_number(row.final_energy_error(), 3) << " | " << format_number(row.cpu_s, 3) << " |\n";
  r << "\nThe nonlinear pendulum, with no closed form, shows the same: rate errors vi-trapezoid "
    << format_number(ptrap.decay_rate_error(), 2) << ", vi-midpoint " << pct(pmid.decay_rate_error()) << ", rk4 "
    << pct(prk.decay_rate_error()) << ".\n\n"
       "## Against the claim\n\n"
       "The claim holds in this sense: a variational integrator's energy decays at the physical rate up to a "
       "relative error set by the step alone — O(h²), independent of how weak the damping is — so that its "
       "decay curve keeps the right slope however long the run, and with no damping it has no drift at all "
       "(it is symplectic: all of its decay comes from the discrete forces). RK4 at the same step adds a "
       "numerical dissipation of its own, independent of the physics, which becomes comparable to the "
       "physical decay at ζ = 1e-3 and dominates it at ζ = 1e-4, and over a long run puts the final energy "
       "off by orders of magnitude. \"Correct\" is not \"exact\", though, and the two VIs differ: the trapezoid "
       "rule gets the rate right to "
    << format_number(std::abs(trap.decay_rate_error()), 1)
    << " on the oscillator and " << format_number(std::abs(ptrap.decay_rate_error()), 1)
    << " on the pendulum, while the midpoint rule is " << pct(-mid.decay_rate_error())
    << " slow at 10 steps per period (a fixed fraction of the rate, falling as h²), which accumulates in log E "
       "like any rate error: its energy at t_end is "
    << format_number(mid.final_energy_ratio, 3) << " times the exact one at ζ = 1e-3 (rk4's: "
    << format_number(rk.final_energy_ratio, 2) << ").\n";
  if (app::draw_figures("damped_systems.py", ctx.out_dir, ctx.log))
    r << "\n![energy against time, damped oscillator and damped pendulum](damped_systems.png)\n\n"
         "Top: E on a log scale against t (the exact or reference energy dashed). Bottom: E divided by the "
         "exact (reference) energy at the same time.\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), r.str());
}

}  // namespace damped_systems_experiment

app::ExperimentEntry damped_systems_entry() {
  return {"damped-systems",
          "001 §1: energy decay of the forced VIs (damped oscillator, damped pendulum) vs the exact decay and rk4",
          damped_systems_experiment::run};
}

}  // namespace mechint::experiments
