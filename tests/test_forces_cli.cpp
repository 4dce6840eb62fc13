// Forces and controls on the command line (docs/forces.md, "On the command line"): the forced
// built-in systems and model files, each checked against something independent — the closed-form
// decay of the damped oscillator, the statics of a pendulum held by a constant torque, the impulse
// of a control schedule computed here from the schedule itself (the forced Noether theorem: the
// cart-rail momentum changes by exactly Σ h u), the built-in system a model file restates. Also the
// contract: which methods a forced system is offered, and one error line with exit 2 for every
// malformed controls file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::CliResult;
using mechint::testing::count_lines;
using mechint::testing::run_mechint;

const fs::path kSource = fs::path(MECHINT_SOURCE_DIR);

/// Model files compile once per build into the tests' shared cache.
class ForcesCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1); }
};

using mechint::testing::parse_csv;
using mechint::testing::Table;

Table run_ok(const std::string& args) {
  const CliResult r = run_mechint(args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
  return parse_csv(r.out);
}

double largest(const std::vector<double>& a) {
  double worst = 0;
  for (const double x : a) worst = std::max(worst, std::abs(x));
  return worst;
}

/// max_k |J(k) − J(0) − J_work(k)|: the forced Noether balance of docs/forces.md.
double noether_imbalance(const Table& t, const std::string& momentum) {
  double worst = 0;
  for (std::size_t k = 0; k < t.rows; ++k)
    worst = std::max(worst, std::abs(t[momentum][k] - t[momentum][0] - t[momentum + "_work"][k]));
  return worst;
}

/// What round-off allows the balance over `steps` steps: each step's equations hold only as well
/// as q_{k+1} can be represented, ε|q|, which the discrete velocity (q_{k+1} − q_k)/h turns into a
/// momentum residual (mass) ε|q|/h, paired with the generator (of size `generator`); summed in the
/// worst case, with the round-off of J itself.
double balance_round_off(int steps, double mass, double q, double h, double generator, double momentum) {
  const double eps = std::numeric_limits<double>::epsilon();
  return steps * eps * (mass * q / h * generator + momentum);
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

/// A file in a per-process temporary folder holding `text`.
fs::path temp_file(const std::string& name, const std::string& text) {
  const fs::path dir = ::mechint::testing::harness_directory() / "forces_cli";
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// A piecewise-constant schedule of one control, written as the --controls file with header
/// `t,<name>`, and its value as docs/forces.md defines it: that of the last row with t_i <= t, the
/// first row's before it.
struct Schedule {
  std::vector<std::pair<double, double>> rows;  // (t_i, u_i)

  double at(double t) const {
    double u = rows.front().second;
    for (const auto& [ti, ui] : rows)
      if (ti <= t) u = ui;
    return u;
  }
  bool near_a_switch(double t) const {
    for (const auto& row : rows)
      if (std::abs(row.first - t) < 1e-9) return true;
    return false;
  }
  fs::path write(const std::string& file, const std::string& control_name) const {
    std::ostringstream text;
    text.precision(17);
    text << "t," << control_name << "\n";
    for (const auto& [t, u] : rows) text << t << "," << u << "\n";
    return temp_file(file, text.str());
  }
};

const Schedule kPushes{{{0.0, 1.5}, {0.25, -0.5}, {0.6, 2.0}, {1.0, 0.0}}};

// ---- the damped oscillator -------------------------------------------------------------------

TEST_F(ForcesCli, DampedOscillatorEnergyFollowsTheClosedFormDecay) {
  const double m = 1.0, k = 1.0, c = 0.1, q0 = 1.0, v0 = 0.0, h = 0.01, t_end = 100.0;
  const Table t = run_ok("run damped-oscillator --set m=1 --set k=1 --set c=0.1 --set q=1 --set v=0 --h 0.01"
                         " --t-end 100 --output-every 100");
  ASSERT_EQ(t.rows, 2u);
  // Exact: q = e^{-γt}(A cos ω t + B sin ω t), γ = c/2m, ω = √(k/m − γ²).
  const double gamma = c / (2 * m), w = std::sqrt(k / m - gamma * gamma), a = q0, b = (v0 + gamma * q0) / w;
  const double decay = std::exp(-gamma * t_end), cs = std::cos(w * t_end), sn = std::sin(w * t_end);
  const double q = decay * (a * cs + b * sn), v = -gamma * q + decay * w * (b * cs - a * sn);
  const double exact = 0.5 * m * v * v + 0.5 * k * q * q, start = 0.5 * m * v0 * v0 + 0.5 * k * q0 * q0;
  EXPECT_NEAR(t["energy"].front(), start, 1e-15);
  // The midpoint forced DEL equations are the bilinear transform of m σ² + c σ + k (docs/forces.md):
  // the amplitude decays at γ/(1 + (ωh/2)²), so log E is off by at most (c/m) T (ωh/2)²; the phase
  // lags by ω T (ωh)²/12 in ωt, and E oscillates at 2ω with relative amplitude about γ/ω, so the lag
  // changes E by at most 2 (2γ/ω) ω T (ωh)²/12 (a factor 2 to spare); the start and the discrete
  // momentum add O((ωh)²). Twice the sum:
  const double bound = 2.0 * ((c / m) * t_end * std::pow(w * h / 2, 2) +
                              2.0 * (2 * gamma / w) * w * t_end * std::pow(w * h, 2) / 12 + std::pow(w * h, 2));
  const double relative_error = std::abs(t["energy"].back() / exact - 1.0);
  EXPECT_LE(relative_error, bound) << "E = " << t["energy"].back() << ", exact " << exact;
  // The bound is tight enough to mean something: the energy fell by a factor e^{-10}.
  EXPECT_LT(bound, 0.01);
  EXPECT_LT(exact, 1e-3 * start);
}

TEST_F(ForcesCli, ModelFileDampedOscillatorGivesTheBuiltInTrajectory) {
  const std::string file = (kSource / "tests" / "model_files" / "good" / "damped-oscillator.toml").string();
  for (const std::string method : {"vi-midpoint", "vi-trapezoid", "rk4"}) {
    const std::string args = " --method " + method + " --h 0.01 --t-end 20";
    const Table builtin = run_ok("run damped-oscillator --set c=0.1" + args);
    const Table model = run_ok("run " + file + args);
    ASSERT_EQ(builtin.names, model.names) << method;
    ASSERT_EQ(builtin.rows, 2001u);
    for (const auto& name : builtin.names)
      EXPECT_LE(max_difference(builtin[name], model[name]), 1e-12) << method << " " << name;
  }
}

TEST_F(ForcesCli, ForcedSystemsAreOfferedOnlyTheMethodsThatHandleForces) {
  const CliResult r = run_mechint("run damped-oscillator --method energy-momentum");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("not offered"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  const CliResult list = run_mechint("list");
  ASSERT_EQ(list.status, 0) << list.err;
  for (const std::string system :
       {"damped-oscillator", "damped-pendulum", "cart-pole", "acrobot", "low-thrust-spacecraft"}) {
    const auto at = list.out.find("\n  " + system + "  ");
    ASSERT_NE(at, std::string::npos) << system << " missing from mechint list";
    const auto methods_at = list.out.find("methods: ", at);
    const std::string methods = list.out.substr(methods_at, list.out.find('\n', methods_at) - methods_at);
    for (const std::string offered :
         {"vi-midpoint (default)", "vi-trapezoid", "vi-first-order", "rk4", "dopri5", "rk78"})
      EXPECT_NE(methods.find(offered), std::string::npos) << system << ": " << methods;
    for (const std::string refused : {"energy-momentum", "dae", "stormer-verlet"})
      EXPECT_EQ(methods.find(refused), std::string::npos) << system << ": " << methods;
  }
}

// ---- controls ----------------------------------------------------------------------------------

TEST_F(ForcesCli, PendulumHeldByAConstantTorqueSettlesWhereTheTorqueBalancesGravity) {
  // Statics: m g l sin θ* = u. With u = m g l / 2, θ* = π/6; friction c = 2 damps the swing away.
  const Table t = run_ok("run damped-pendulum --set m=1 --set l=1 --set g=9.81 --set c=2 --set th=0 --set dth=0"
                         " --set u1=4.905 --t-end 40 --output-every 0.5");
  ASSERT_EQ(t.rows, 81u);
  EXPECT_NEAR(t["th"].back(), M_PI / 6, 1e-9);
  for (const double u : t["u1"]) EXPECT_EQ(u, 4.905);
}

TEST_F(ForcesCli, ControlScheduleDrivesTheCartAndItsMomentumChangesByTheImpulse) {
  const double h = 0.01;
  const fs::path schedule = kPushes.write("pushes.csv", "u1");
  const Table t = run_ok("run cart-pole --h 0.01 --t-end 1.2 --controls " + schedule.string());
  ASSERT_EQ(t.rows, 121u);
  EXPECT_EQ(t.names, (std::vector<std::string>{"t", "x", "th", "energy", "px", "px_work", "u1"}));
  // Step k holds the schedule at its midpoint t_k + h/2; a row shows the step that ended at it (the
  // first row: the first step's).
  double impulse = 0.0, worst_work = 0.0;
  for (std::size_t k = 0; k < t.rows; ++k) {
    const double tk = t["t"][k], u = kPushes.at(k == 0 ? h / 2 : tk - h / 2);
    EXPECT_EQ(t["u1"][k], u) << "t = " << tk;
    if (k > 0) impulse += h * u;
    worst_work = std::max(worst_work, std::abs(t["px_work"][k] - impulse));
  }
  // Two formulations: the Noether momentum the integrator carries, and the impulse Σ h u_k of the
  // schedule summed here. The force (u, 0) does work h u_k along ξ = (1, 0) in each step.
  EXPECT_NEAR(t["px"].back() - t["px"].front(), impulse, 1e-12);
  EXPECT_LE(worst_work, 1e-12);
  EXPECT_LE(noether_imbalance(t, "px"), 1e-12);
  EXPECT_GT(std::abs(impulse), 0.5);  // the pushes moved the cart

  // The same schedule under rk4, which samples it at its stage times: no discrete work, and the
  // control column is the schedule's value just before each row.
  const Table rk = run_ok("run cart-pole --method rk4 --h 0.01 --t-end 1.2 --controls " + schedule.string());
  EXPECT_EQ(rk.names, (std::vector<std::string>{"t", "x", "th", "energy", "px", "u1"}));
  for (std::size_t k = 1; k < rk.rows; ++k) {
    if (kPushes.near_a_switch(rk["t"][k])) continue;
    EXPECT_EQ(rk["u1"][k], kPushes.at(rk["t"][k])) << rk["t"][k];
  }
}

TEST_F(ForcesCli, AConstantControlIsAOneRowSchedule) {
  const fs::path one_row = temp_file("constant.csv", "t,u1\n0,0.75\n");
  const CliResult set = run_mechint("run cart-pole --t-end 2 --output-every 0.1 --set u1=0.75");
  const CliResult file = run_mechint("run cart-pole --t-end 2 --output-every 0.1 --controls " + one_row.string());
  ASSERT_EQ(set.status, 0) << set.err;
  ASSERT_EQ(file.status, 0) << file.err;
  EXPECT_EQ(set.out, file.out);
  // A constant schedule is held by the stepper; one of several rows of the same value is a law
  // sampled at every step's midpoint. The two paths give the same rows, for the DEL and the
  // Galerkin steppers.
  const fs::path same_rows = temp_file("same-rows.csv", "t,u1\n0,0.75\n0.5,0.75\n1.3,0.75\n");
  for (const std::string method : {"vi-midpoint", "vi-gauss4"}) {
    const std::string run = "run cart-pole --t-end 2 --output-every 0.1 --method " + method;
    const CliResult held = run_mechint(run + " --set u1=0.75");
    const CliResult law = run_mechint(run + " --controls " + same_rows.string());
    ASSERT_EQ(held.status, 0) << held.err;
    ASSERT_EQ(law.status, 0) << law.err;
    EXPECT_EQ(held.out, law.out) << method;
  }
  const Table t = parse_csv(set.out);
  // 200 steps of impulse 0.01·0.75 each.
  EXPECT_NEAR(t["px"].back() - t["px"].front(), 0.75 * 2.0,
              balance_round_off(200, 1.3, largest(t["x"]), 0.01, 1.0, largest(t["px"])));
}

TEST_F(ForcesCli, ThrustAlongTheOrbitChangesTheAngularMomentumByItsDiscreteWork) {
  const Table t = run_ok("run low-thrust-spacecraft --set u2=0.01 --h 0.01 --t-end 20 --output-every 0.1");
  ASSERT_EQ(t.rows, 201u);
  // ξ(q) = (−y, x): the generator is as large as the radius.
  double r = 0;
  for (std::size_t k = 0; k < t.rows; ++k) r = std::max(r, std::hypot(t["x"][k], t["y"][k]));
  EXPECT_LE(noether_imbalance(t, "J"), balance_round_off(2000, 1.0, r, 0.01, r, largest(t["J"])));
  EXPECT_GT(t["J_work"].back(), 0.1);  // ∫ m r u_t dt ≈ 0.2 near the unit circle
  for (const double u : t["u1"]) EXPECT_EQ(u, 0.0);
  for (const double u : t["u2"]) EXPECT_EQ(u, 0.01);
}

// ---- malformed controls ------------------------------------------------------------------------

TEST_F(ForcesCli, MalformedControlsFilesAreOneLineWithExitTwoAndNoOutput) {
  struct Case {
    std::string name, text;
    int line;
    std::string what;
  };
  const std::vector<Case> cases = {
      {"empty", "", 1, "empty"},
      {"first-column", "x,u1\n0,1\n", 1, "first column must be t"},
      {"unknown-name", "t,u2\n0,1\n", 1, "unknown control 'u2'"},
      {"missing-name", "t\n0\n", 1, "no column for control 'u1'"},
      {"twice", "t,u1,u1\n0,1,1\n", 1, "appears twice"},
      {"header-only", "t,u1\n", 1, "no rows after the header"},
      {"short-row", "t,u1\n0\n", 2, "1 values, expected 2"},
      {"not-a-number", "t,u1\n0,abc\n", 2, "not a number"},
      {"nan-time", "t,u1\n0,1\nnan,2\n", 3, "finite"},
      {"infinite-value", "t,u1\n0,1\n0.2,inf\n", 3, "finite"},
      {"repeated-time", "t,u1\n0,1\n0.5,2\n0.5,3\n", 4, "not after the previous row"},
      {"decreasing-time", "t,u1\n0.5,1\n0.2,2\n", 3, "not after the previous row"},
  };
  const fs::path out = temp_file("refused.csv", "");
  fs::remove(out);
  for (const auto& c : cases) {
    const fs::path file = temp_file(c.name + ".csv", c.text);
    const CliResult r = run_mechint("run cart-pole --t-end 0.1 --controls " + file.string() + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << c.name << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << c.name << ": " << r.err;
    const std::string where = "mechint: error: " + file.string() + ":" + std::to_string(c.line) + ": ";
    EXPECT_EQ(r.err.rfind(where, 0), 0u) << c.name << ": expected " << where << "\n got " << r.err;
    EXPECT_NE(r.err.find(c.what), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.name;
    EXPECT_EQ(mechint::testing::leftover_temporaries(out), 0) << c.name;
  }
  const CliResult missing = run_mechint("run cart-pole --controls " + (out.parent_path() / "none.csv").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(count_lines(missing.err), 1) << missing.err;
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
}

TEST_F(ForcesCli, ControlsAreRefusedWhereTheyCannotApply) {
  const fs::path schedule = temp_file("any.csv", "t,u1\n0,1\n");
  for (const std::string system : {"kepler", "damped-oscillator"}) {
    const CliResult r = run_mechint("run " + system + " --controls " + schedule.string());
    EXPECT_EQ(r.status, 2) << system;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("has no control inputs"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const CliResult both = run_mechint("run cart-pole --set u1=1 --controls " + schedule.string());
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(count_lines(both.err), 1) << both.err;
  EXPECT_NE(both.err.find("both by --set and by --controls"), std::string::npos) << both.err;
  const CliResult unknown = run_mechint("run kepler --set u1=1");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown name 'u1'"), std::string::npos) << unknown.err;
}

// ---- model files with forces and controls (examples/models/damped-cart-pole.toml) --------------

const std::string kDampedCartPole = (kSource / "examples" / "models" / "damped-cart-pole.toml").string();

TEST_F(ForcesCli, DampedCartPoleWithoutFrictionIsTheBuiltInCartPoleUnderTheSameSchedule) {
  // The model file names its control u; its output column is u1 as the built-in's.
  const fs::path for_file = kPushes.write("pushes-u.csv", "u"), for_builtin = kPushes.write("pushes-u1.csv", "u1");
  const Table model = run_ok("run " + kDampedCartPole + " --set c=0 --t-end 1.2 --controls " + for_file.string());
  const Table builtin = run_ok("run cart-pole --t-end 1.2 --controls " + for_builtin.string());
  EXPECT_EQ(model.names, (std::vector<std::string>{"t", "x", "th", "energy", "J1", "J1_work", "u1"}));
  ASSERT_EQ(model.rows, builtin.rows);
  const std::vector<std::pair<std::string, std::string>> same = {
      {"t", "t"}, {"x", "x"}, {"th", "th"}, {"energy", "energy"}, {"J1", "px"}, {"J1_work", "px_work"}, {"u1", "u1"}};
  for (const auto& [mine, theirs] : same)
    EXPECT_LE(max_difference(model[mine], builtin[theirs]), 1e-12) << mine;

  const CliResult wrong = run_mechint("run " + kDampedCartPole + " --controls " + for_builtin.string());
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find(for_builtin.string() + ":1: unknown control 'u1'"), std::string::npos) << wrong.err;
}

TEST_F(ForcesCli, DampedCartPoleFrictionTakesTheMomentumAwayByItsDiscreteWork) {
  const Table t = run_ok("run " + kDampedCartPole + " --set x_dot=1 --set u=0.1 --t-end 20 --output-every 0.1");
  ASSERT_EQ(t.rows, 201u);
  // The cart travels to x ≈ 13 (ξ = (1, 0), mass M + m = 1.3): the balance closes to ~2e-12.
  EXPECT_LE(noether_imbalance(t, "J1"), balance_round_off(2000, 1.3, largest(t["x"]), 0.01, 1.0, largest(t["J1"])));
  // The work along the rail is ∫(u − c x_dot) dt: the cart starts at x_dot = 1, faster than the
  // u/c = 0.5 at which friction balances the push, so friction takes more than the push gives.
  EXPECT_LT(t["J1_work"].back(), 0.0);
  for (const double u : t["u1"]) EXPECT_EQ(u, 0.1);

  const CliResult check = run_mechint("check " + kDampedCartPole);
  ASSERT_EQ(check.status, 0) << check.err;
  EXPECT_NE(check.out.find("controls: u (column u1)"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("forces (generalized, one per coordinate): on x; depend on velocities, controls"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("energy-momentum method: does not apply (forces)"), std::string::npos) << check.out;
}

}  // namespace
