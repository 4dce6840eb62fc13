// `mechint reproduce nonholonomic` (DESIGN §10; docs/nonholonomic.md): the discrete
// Lagrange–d'Alembert integrators (vi-midpoint, vi-trapezoid; kernel/nonholonomic_integrator.hpp) on
// the Chaplygin sleigh and the rolling disk, against references that share nothing with them:
//
// (1) Chaplygin sleigh, m = I = 1, a = 0.5, from v = ω = 1: its reduced equations in body velocities
//     (Bloch ch. 1) v̇ = a ω², ω̇ = −m a v ω/(I + m a²), the centre of mass moving with v along the
//     heading and a ω across it, integrated by Boost.Odeint's rk78 at rtol = atol = 1e-13 (checked
//     against 1e-12); its constraint force μ = m (v ω + a ω̇).
// (2) Rolling disk, m = R = 1, I = 0.25, J = 0.5, from θ̇ = 1, φ̇ = 2: the closed form (Bloch ch. 1)
//     θ = θ̇ t, φ = φ̇ t, the contact point on the circle of radius R φ̇/θ̇; μ = m (ẍ, ÿ).
//
// Measured: the trajectories, the energy and the discrete constraint over t ≤ 30 at h = 0.05 (the
// figure), the errors of q and μ at t = 10 for h = 0.1 … 0.0125 (the orders), the first integrals of
// the disk, and the energy over 10⁶ steps.
#include <array>
#include <cmath>
#include <functional>
#include <sstream>

#include <boost/numeric/odeint.hpp>
#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/nonholonomic_integrator.hpp"
#include "kernel/nonholonomic_kernels.hpp"
#include "mechint/core/format.hpp"

namespace mechint::experiments {
namespace nonholonomic_experiment {

using kernel::KernelModel;
using kernel::NonholonomicIntegrator;
using kernel::Rule;
using kernel::Vector;

constexpr double kFigureH = 0.05, kFigureEnd = 30.0, kOrderEnd = 10.0;
constexpr std::array<double, 4> kSteps = {0.1, 0.05, 0.025, 0.0125};
constexpr long kLongSteps = 1000000, kShortSteps = 10000;
constexpr std::array<Rule, 2> kRules = {Rule::kMidpoint, Rule::kTrapezoid};

const char* name_of(Rule rule) { return rule == Rule::kMidpoint ? "vi-midpoint" : "vi-trapezoid"; }

/// A system with its reference motion: q(t) (the coordinates), μ(t) and E.
struct System {
  std::string name;
  KernelModel model;
  Vector q0, qdot0;
  std::vector<std::string> coordinates;
  std::function<Vector(double)> q;
  std::function<Vector(double)> mu;
  double energy;
};

// ---- the sleigh's reference ---------------------------------------------------------------------

struct SleighEquations {
  using State = std::array<double, 5>;  // x, y, θ, v, ω
  double m = 1.0, inertia = 1.0, a = 0.5;
  double omega_dot(const State& z) const { return -m * a * z[3] * z[4] / (inertia + m * a * a); }
  void operator()(const State& z, State& dz, double) const {
    const double c = std::cos(z[2]), s = std::sin(z[2]);
    dz[0] = z[3] * c - a * z[4] * s;
    dz[1] = z[3] * s + a * z[4] * c;
    dz[2] = z[4];
    dz[3] = a * z[4] * z[4];
    dz[4] = omega_dot(z);
  }
  State at(double t, double tolerance) const {
    namespace odeint = boost::numeric::odeint;
    State z{0.0, 0.0, 0.0, 1.0, 1.0};
    if (t > 0.0)
      odeint::integrate_adaptive(odeint::make_controlled(tolerance, tolerance, odeint::runge_kutta_fehlberg78<State>()),
                                 *this, z, 0.0, t, 1e-3);
    return z;
  }
};

System sleigh() {
  const SleighEquations eq;
  System s{"chaplygin-sleigh", kernel::chaplygin_sleigh_model(eq.m, eq.inertia, eq.a), Vector::Zero(3),
           Vector(Eigen::Vector3d(1.0, eq.a, 1.0)), {"x", "y", "theta"}, nullptr, nullptr,
           0.5 * eq.m * (1.0 + eq.a * eq.a) + 0.5 * eq.inertia};
  s.q = [eq](double t) {
    const auto z = eq.at(t, 1e-13);
    return Vector(Eigen::Vector3d(z[0], z[1], z[2]));
  };
  s.mu = [eq](double t) {
    const auto z = eq.at(t, 1e-13);
    return Vector::Constant(1, eq.m * (z[3] * z[4] + eq.a * eq.omega_dot(z)));
  };
  return s;
}

/// The largest difference of the sleigh's reference at 1e-13 from the one at 1e-12 over the figure.
double sleigh_reference_uncertainty() {
  const SleighEquations eq;
  double worst = 0.0;
  for (double t = 1.0; t <= kFigureEnd; t += 1.0) {
    const auto a = eq.at(t, 1e-13), b = eq.at(t, 1e-12);
    for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst;
}

System disk() {
  constexpr double m = 1.0, r = 1.0, inertia = 0.25, axle = 0.5, theta_dot = 1.0, phi_dot = 2.0;
  System s{"rolling-disk", kernel::rolling_disk_model(m, r, inertia, axle), Vector::Zero(4),
           Vector(Eigen::Vector4d(r * phi_dot, 0.0, theta_dot, phi_dot)), {"x", "y", "theta", "phi"}, nullptr, nullptr,
           0.5 * (m * r * r + axle) * phi_dot * phi_dot + 0.5 * inertia * theta_dot * theta_dot};
  const double radius = r * phi_dot / theta_dot;
  s.q = [=](double t) {
    const double th = theta_dot * t;
    return Vector(Eigen::Vector4d(radius * std::sin(th), radius * (1.0 - std::cos(th)), th, phi_dot * t));
  };
  // m (ẍ, ÿ) with ẋ = R φ̇ cos θ, ẏ = R φ̇ sin θ.
  s.mu = [=](double t) {
    const double th = theta_dot * t, k = m * r * phi_dot * theta_dot;
    return Vector(Eigen::Vector2d(-k * std::sin(th), k * std::cos(th)));
  };
  return s;
}

// ---- runs ---------------------------------------------------------------------------------------

/// One method over the figure: samples every 0.1 and the largest errors over the run.
struct Trajectory {
  std::vector<double> t;
  std::vector<Vector> q;
  std::vector<double> energy_error, residual;
  double max_energy_error = 0.0, max_residual = 0.0;
};

Trajectory figure_run(const System& s, Rule rule) {
  NonholonomicIntegrator vi(s.model, rule, kFigureH);
  vi.start_from_velocity(s.q0, s.qdot0);
  Trajectory tr;
  const long steps = std::lround(kFigureEnd / kFigureH), every = 2;
  for (long k = 0; k <= steps; ++k) {
    if (k > 0) vi.step();
    const double e = std::abs(vi.energy() - s.energy) / s.energy;
    tr.max_energy_error = std::max(tr.max_energy_error, e);
    tr.max_residual = std::max(tr.max_residual, vi.nonholonomic_residual());
    if (k % every != 0) continue;
    tr.t.push_back(static_cast<double>(k) * kFigureH);
    tr.q.push_back(vi.q());
    tr.energy_error.push_back(e);
    tr.residual.push_back(vi.nonholonomic_residual());
  }
  return tr;
}

/// Errors at t = kOrderEnd: q (max norm) and the `mu` columns' multiplier.
struct OrderPoint {
  double h, q_error, mu_error;
};

OrderPoint order_point(const System& s, Rule rule, double h) {
  NonholonomicIntegrator vi(s.model, rule, h);
  vi.start_from_velocity(s.q0, s.qdot0);
  const long steps = std::lround(kOrderEnd / h);
  for (long k = 0; k < steps; ++k) vi.step();
  return {h, (vi.q() - s.q(kOrderEnd)).lpNorm<Eigen::Infinity>(),
          (vi.multiplier() - s.mu(kOrderEnd)).lpNorm<Eigen::Infinity>()};
}

double observed_order(const OrderPoint& a, const OrderPoint& b, double OrderPoint::*error) {
  return std::log(a.*error / b.*error) / std::log(a.h / b.h);
}

/// Largest relative energy error sampled every 1000 steps over the first kShortSteps and over all.
std::pair<double, double> long_energy(const System& s, Rule rule) {
  NonholonomicIntegrator vi(s.model, rule, kFigureH);
  vi.start_from_velocity(s.q0, s.qdot0);
  double first = 0.0, all = 0.0;
  for (long k = 1; k <= kLongSteps; ++k) {
    vi.step();
    if (k % 1000 != 0) continue;
    all = std::max(all, std::abs(vi.energy() - s.energy) / s.energy);
    if (k <= kShortSteps) first = all;
  }
  return {first, all};
}

void write_figure_csv(const app::ExperimentContext& ctx, const System& s, const std::vector<Trajectory>& runs) {
  std::ostringstream csv;
  csv.precision(12);
  csv << "t";
  for (const auto& c : s.coordinates) csv << "," << c << "_reference";
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const auto& c : s.coordinates) csv << "," << c << "_" << name_of(kRules[r]);
  for (std::size_t r = 0; r < runs.size(); ++r) csv << ",energy_error_" << name_of(kRules[r]);
  for (std::size_t r = 0; r < runs.size(); ++r) csv << ",residual_" << name_of(kRules[r]);
  csv << "\n";
  for (std::size_t k = 0; k < runs.front().t.size(); ++k) {
    const double t = runs.front().t[k];
    csv << t;
    const Vector ref = s.q(t);
    for (Eigen::Index i = 0; i < ref.size(); ++i) csv << "," << ref[i];
    for (const auto& run : runs)
      for (Eigen::Index i = 0; i < run.q[k].size(); ++i) csv << "," << run.q[k][i];
    for (const auto& run : runs) csv << "," << run.energy_error[k];
    for (const auto& run : runs) csv << "," << run.residual[k];
    csv << "\n";
  }
  app::write_text_atomically((ctx.out_dir / ("nonholonomic_" + s.name + ".csv")).string(), csv.str());
}

/// The largest deviations of the disk's θ̇ (Δθ/h), φ̇ (of the velocity column) over the figure run.
std::pair<double, double> disk_rates(const System& s, Rule rule) {
  NonholonomicIntegrator vi(s.model, rule, kFigureH);
  vi.start_from_velocity(s.q0, s.qdot0);
  double theta = 0.0, phi = 0.0;
  const long steps = std::lround(kFigureEnd / kFigureH);
  for (long k = 0; k < steps; ++k) {
    const double before = vi.q()[2];
    vi.step();
    theta = std::max(theta, std::abs((vi.q()[2] - before) / kFigureH - s.qdot0[2]));
    phi = std::max(phi, std::abs(vi.velocity()[3] - s.qdot0[3]) / s.qdot0[3]);
  }
  return {theta, phi};
}

void run(const app::ExperimentContext& ctx) {
  const std::vector<System> systems = {sleigh(), disk()};
  nlohmann::json j;
  j["figure"] = {{"h", kFigureH}, {"t_end", kFigureEnd}};
  j["order_t_end"] = kOrderEnd;
  j["sleigh"] = {{"m", 1.0}, {"I", 1.0}, {"a", 0.5}, {"v0", 1.0}, {"omega0", 1.0},
                 {"reference", "reduced equations, rk78 at rtol = atol = 1e-13"},
                 {"reference_uncertainty", sleigh_reference_uncertainty()}};
  j["disk"] = {{"m", 1.0}, {"R", 1.0}, {"I", 0.25}, {"J", 0.5}, {"theta_dot", 1.0}, {"phi_dot", 2.0},
               {"reference", "closed form"}};
  std::ostringstream table, long_table;
  for (const System& s : systems) {
    ctx.log << "  " << s.name << std::endl;
    std::vector<Trajectory> runs;
    for (Rule rule : kRules) {
      runs.push_back(figure_run(s, rule));
      std::vector<OrderPoint> points;
      for (double h : kSteps) points.push_back(order_point(s, rule, h));
      const auto& last = points.back();
      const double q_order = observed_order(points[points.size() - 2], last, &OrderPoint::q_error);
      const double mu_order = observed_order(points[points.size() - 2], last, &OrderPoint::mu_error);
      for (const auto& p : points) {
        j["rows"].push_back({{"system", s.name}, {"method", name_of(rule)}, {"h", p.h}, {"t_end", kOrderEnd},
                             {"position_error", p.q_error}, {"multiplier_error", p.mu_error}});
        table << "| " << s.name << " | " << name_of(rule) << " | " << format_number(p.h, 4) << " | "
              << format_number(p.q_error, 3) << " | " << format_number(p.mu_error, 3) << " |\n";
      }
      const auto [first, all] = long_energy(s, rule);
      const Trajectory& tr = runs.back();
      nlohmann::json summary = {{"system", s.name},
                                {"method", name_of(rule)},
                                {"position_order", q_order},
                                {"multiplier_order", mu_order},
                                {"max_energy_error", tr.max_energy_error},
                                {"max_nonholonomic_residual", tr.max_residual},
                                {"energy_error_first_1e4_steps", first},
                                {"energy_error_1e6_steps", all}};
      if (s.name == "rolling-disk") {
        const auto [theta, phi] = disk_rates(s, rule);
        summary["theta_dot_error"] = theta;
        summary["phi_dot_error"] = phi;
      }
      j["summary"].push_back(summary);
      long_table << "| " << s.name << " | " << name_of(rule) << " | " << format_number(q_order, 3) << " | "
                 << format_number(mu_order, 3) << " | " << format_number(tr.max_residual, 2) << " | "
                 << format_number(tr.max_energy_error, 2) << " | " << format_number(first, 2) << " | "
                 << format_number(all, 2) << " |\n";
    }
    write_figure_csv(ctx, s, runs);
  }
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");

  std::ostringstream r;
  r << "# Nonholonomic integrators: the Chaplygin sleigh and the rolling disk\n\n"
       "The discrete Lagrange–d'Alembert integrators of docs/nonholonomic.md (`vi-midpoint`, `vi-trapezoid`: the "
       "constraint force split over the step's ends, the constraint imposed on the difference quotient; reversible, "
       "order 2) against references derived apart from them: the sleigh's reduced equations (Bloch ch. 1) by rk78 at "
       "1e-13 (differs from 1e-12 by "
    << format_number(j["sleigh"]["reference_uncertainty"].get<double>(), 2)
    << "), the disk's closed-form circle (Bloch ch. 1). Parameters in results.json.\n\n"
       "## Summary (figure runs: h = "
    << format_number(kFigureH, 3) << ", t ≤ " << format_number(kFigureEnd, 3)
    << "; orders from h = 0.025 and 0.0125 at t = " << format_number(kOrderEnd, 3)
    << "; energy over 1e6 steps of h = 0.05)\n\n"
       "| system | method | order of q | order of μ | max constraint residual | max energy error | energy error, first 1e4 "
       "steps | energy error, 1e6 steps |\n|---|---|---|---|---|---|---|---|\n"
    << long_table.str()
    << "\nEnergy errors are relative, |E − E0|/E0. The constraint residual is the discrete constraint ‖Ā Δq/h‖∞ "
       "Newton solves (round-off). The multiplier is the `mu` column's: that of the continuous equations at the "
       "recorded state.\n\n## Errors at t = "
    << format_number(kOrderEnd, 3)
    << "\n\n| system | method | h | error of q (max norm) | error of μ |\n|---|---|---|---|---|\n"
    << table.str();
  r << "\nThe disk's multiplier at the state, m R φ̇ θ̇ (−sin θ, cos θ), is as accurate as φ̇, θ being exact: "
       "O(h⁴) for vi-midpoint, round-off for vi-trapezoid (its \"order\" above is then noise).\n";
  for (const auto& s : j["summary"])
    if (s.contains("theta_dot_error"))
      r << "\nRolling disk, " << s["method"].get<std::string>() << ": θ̇ kept to "
        << format_number(s["theta_dot_error"].get<double>(), 2) << " (exactly: no constraint force acts on θ), φ̇ to "
        << format_number(s["phi_dot_error"].get<double>(), 2) << " relative.";
  r << "\n";
  if (app::draw_figures("nonholonomic.py", ctx.out_dir, ctx.log))
    r << "\n![trajectories, energy error and constraint residual](nonholonomic.png)\n\n"
         "Top: the paths in the plane (reference dashed). Middle: relative energy error. Bottom: the discrete "
         "constraint residual.\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), r.str());
}

}  // namespace nonholonomic_experiment

app::ExperimentEntry nonholonomic_entry() {
  return {"nonholonomic",
          "Chaplygin sleigh and rolling disk: discrete Lagrange-d'Alembert vi-midpoint and vi-trapezoid against "
          "reference motions (orders, energy, constraint residual)",
          nonholonomic_experiment::run};
}

}  // namespace mechint::experiments
