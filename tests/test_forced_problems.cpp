// Forced problems through a built-in's path on its kernels (app/builtin_kernels.hpp: the method
// table's rows, the kernel methods, the run loop and the recorder), without the command line: which methods a forced model is offered, the
// columns its runs write, the controls a run is given (app/control_schedule.hpp) reaching the
// variational integrator at each step's midpoint, and the forced Noether balance in the columns
// against the impulse Σ h u summed here from the schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/control_schedule.hpp"
#include "app/row_writer.hpp"
#include "app/builtin_kernels.hpp"
#include "cli_harness.hpp"
#include "kernel/model_adapter.txx"  // the kernels of this file's own model (CartPoleWithFriction)
#include "mechint/core/errors.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/integrate/stepper.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"

namespace {

using namespace mechint;
namespace fs = std::filesystem;

/// Keeps the rows of a run.
class Rows : public app::RowWriter {
 public:
  void header(const std::vector<std::string>& columns) override { columns_ = columns; }
  void row(const std::vector<double>& values) override { rows_.push_back(values); }

  const std::vector<std::string>& columns() const { return columns_; }
  std::size_t size() const { return rows_.size(); }
  double at(std::size_t row, const std::string& column) const {
    const auto it = std::find(columns_.begin(), columns_.end(), column);
    if (it == columns_.end()) throw std::runtime_error("no column " + column);
    return rows_.at(row).at(static_cast<std::size_t>(it - columns_.begin()));
  }

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> rows_;
};

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path dir = ::mechint::testing::harness_directory() / "forced_problems";
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

app::ParameterValues defaults(const std::vector<app::ParameterSpec>& specs) {
  return app::ParameterValues::resolve(specs, {}, "test");
}

/// The default options of `method` on problem `p`, as the command line resolves them.
template <class P>
app::ParameterValues options_of(const P& p, const std::string& method) {
  return defaults(methods::method_options(app::method_structure_of(p), method));
}

app::Problem<systems::CartPole> cart_pole() {
  app::Problem<systems::CartPole> p(systems::CartPole{});
  p.q0 = VecD<2>(0.0, 0.5);
  p.labels = {{"x", "th"}, {"px"}};
  return p;
}

// The forced capabilities of the fixed-size stepper contract (integrate/stepper.hpp) are
// compile-time properties: the Runge–Kutta baselines report no controls and no discrete work.
using CartPoleRk4 = RungeKutta4Stepper<systems::CartPole>;
static_assert(!HasControls<CartPoleRk4> && !HasDiscreteWork<CartPoleRk4>);

// The kernel engine decides them at run time, from the model: its variational integrator writes
// discrete work only for a forced model with a symmetry, controls only for a model with controls —
// none for the damped oscillator (forced, no symmetry) or for Kepler (a symmetry, no forces) here,
// both for the cart-pole (forced, a symmetry, a control: its columns are checked in the runs below,
// where its kernel rk4 writes the control it samples, unlike the fixed-size baseline above, and no
// discrete work).
TEST(ForcedProblems, KernelRunsReportDiscreteWorkAndControlsOnlyWhereTheModelHasThem) {
  const OutputSchedule schedule{0.1, 1.0, 0.0};
  app::Problem<systems::DampedHarmonicOscillator> damped(systems::DampedHarmonicOscillator{1.0, 1.0, 0.1});
  damped.q0 = VecD<1>(1.0);
  damped.labels = {{"q"}, {}};
  Rows d;
  app::run_kernel_problem(app::kernel_problem_of(damped), "vi-midpoint", options_of(damped, "vi-midpoint"), schedule, d,
                                app::ControlSchedule());
  EXPECT_EQ(d.columns(), (std::vector<std::string>{"t", "q", "energy"}));
  app::Problem<systems::Kepler> kepler(systems::Kepler{1.0});
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, kepler.q0, kepler.initial_data);
  kepler.labels = {{"x", "y"}, {"J"}};
  Rows k;
  app::run_kernel_problem(app::kernel_problem_of(kepler), "vi-midpoint", options_of(kepler, "vi-midpoint"), schedule, k,
                                app::ControlSchedule());
  EXPECT_EQ(k.columns(), (std::vector<std::string>{"t", "x", "y", "energy", "J"}));
}

TEST(ForcedProblems, AreOfferedTheRulesWithDiscreteForcesAndTheRungeKuttaBaselines) {
  const std::vector<std::string> forced = {"vi-midpoint", "vi-trapezoid", "vi-first-order", "vi-gauss4", "vi-gauss6",
                                           "vi-gauss8",   "vi-lobatto4",  "vi-lobatto6",    "rk4",       "dopri5",
                                           "rk78"};
  // The structure the AD backend reads from the damped oscillator's type: forced, constant mass.
  app::Problem<systems::DampedHarmonicOscillator> damped(systems::DampedHarmonicOscillator{1.0, 1.0, 0.1});
  const methods::MethodStructure damped_structure = app::method_structure_of(damped);
  EXPECT_TRUE(damped_structure.forced);
  EXPECT_EQ(methods::offered_methods(damped_structure), forced);
  // The same structure with and without forces: only the forces take energy-momentum away.
  const methods::MethodStructure unforced_structure{.energy_momentum = true};
  auto unforced = forced;
  unforced.push_back("energy-momentum");
  EXPECT_EQ(methods::offered_methods(unforced_structure), unforced);
  EXPECT_THROW(methods::method_options(damped_structure, "energy-momentum"), InvalidInput);
  // With a constraint: the variational rules only (no Runge–Kutta on a constrained model, no DAE
  // with forces), Lobatto's among them.
  const methods::MethodStructure constrained{.num_constraints = 1, .forced = true, .constraint_curvature = true};
  EXPECT_EQ(methods::offered_methods(constrained),
            (std::vector<std::string>{"vi-midpoint", "vi-trapezoid", "vi-first-order", "vi-lobatto4", "vi-lobatto6"}));
  // In a chart: the variational rules, and none with forces (their discrete forces would have to be
  // pulled back to the chart).
  EXPECT_EQ(methods::offered_methods({.charted = true}),
            (std::vector<std::string>{"vi-midpoint", "vi-trapezoid", "vi-first-order"}));
  EXPECT_TRUE(methods::offered_methods({.forced = true, .charted = true}).empty());
}

TEST(ForcedProblems, ScheduleReachesEachStepAtItsMidpointAndTheMomentumChangesByTheImpulse) {
  const double h = 0.01;
  const std::vector<std::pair<double, double>> rows = {{0.0, 1.5}, {0.25, -0.5}, {0.6, 2.0}, {1.0, 0.0}};
  const auto u_at = [&](double t) {
    double u = rows.front().second;
    for (const auto& [ti, ui] : rows)
      if (ti <= t) u = ui;
    return u;
  };
  const auto schedule =
      app::ControlSchedule::read(write_file("s.csv", "t, u1\n0,1.5\n\n0.25,-0.5\r\n0.6,2\n1.0,0\n").string(), {"u1"});
  for (const double t : {-1.0, 0.0, 0.1, 0.25, 0.3, 0.6, 0.99, 1.0, 7.0}) {
    EXPECT_EQ(schedule.at<1>(t)[0], u_at(t)) << t;
  }
  EXPECT_EQ(schedule.before<1>(0.25)[0], 1.5);
  EXPECT_EQ(schedule.before<1>(0.0)[0], 1.5);

  Rows out;
  app::run_kernel_problem(app::kernel_problem_of(cart_pole()), "vi-midpoint", options_of(cart_pole(), "vi-midpoint"),
                                OutputSchedule{h, 1.2, 0.0}, out, schedule);
  EXPECT_EQ(out.columns(), (std::vector<std::string>{"t", "x", "th", "energy", "px", "px_work", "u1"}));
  ASSERT_EQ(out.size(), 121u);
  double impulse = 0.0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const double t = out.at(k, "t"), u = u_at(k == 0 ? h / 2 : t - h / 2);
    EXPECT_EQ(out.at(k, "u1"), u) << t;
    if (k > 0) impulse += h * u;
    EXPECT_NEAR(out.at(k, "px_work"), impulse, 1e-12) << t;
    EXPECT_NEAR(out.at(k, "px") - out.at(0, "px"), impulse, 1e-12) << t;
  }
  EXPECT_NEAR(impulse, 1.0, 1e-12);  // 0.25·1.5 − 0.35·0.5 + 0.4·2

  Rows rk;
  app::run_kernel_problem(app::kernel_problem_of(cart_pole()), "rk4", options_of(cart_pole(), "rk4"), OutputSchedule{h, 1.2, 0.0}, rk,
                                schedule);
  EXPECT_EQ(rk.columns(), (std::vector<std::string>{"t", "x", "th", "energy", "px", "u1"}));
  EXPECT_EQ(rk.at(0, "u1"), 1.5);
  EXPECT_EQ(rk.at(50, "u1"), u_at(0.49));
  // Without controls the cart-pole runs free: its momentum is kept.
  Rows free;
  app::run_kernel_problem(app::kernel_problem_of(cart_pole()), "vi-midpoint", options_of(cart_pole(), "vi-midpoint"),
                                OutputSchedule{h, 1.2, 0.0}, free, app::ControlSchedule());
  EXPECT_EQ(free.at(120, "u1"), 0.0);
  EXPECT_NEAR(free.at(120, "px"), free.at(0, "px"), 1e-12);
}

/// The cart-pole of examples/models/damped-cart-pole.toml: viscous friction c = 0.2 on the rail.
struct CartPoleWithFriction : systems::CartPole {
  template <class T>
  T rayleigh_dissipation(const Vec<T, 2>&, const Vec<T, 2>& v) const {
    return 0.1 * v[0] * v[0];
  }
};

TEST(ForcedProblems, FrictionAndPushCloseTheNoetherBalanceOverALongRun) {
  app::Problem<CartPoleWithFriction> p;
  p.q0 = VecD<2>(0.0, 0.5);
  p.initial_data = VecD<2>(1.0, 0.0);
  p.labels = {{"x", "th"}, {"px"}};
  Rows out;
  const double h = 0.01;
  app::run_kernel_problem(app::kernel_problem_of(p), "vi-midpoint", options_of(p, "vi-midpoint"), OutputSchedule{h, 20.0, 0.0}, out,
                   app::ControlSchedule::constant({0.1}));
  ASSERT_EQ(out.size(), 2001u);
  double worst = 0.0, largest_x = 0.0, largest_px = 0.0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    worst = std::max(worst, std::abs(out.at(k, "px") - out.at(0, "px") - out.at(k, "px_work")));
    largest_x = std::max(largest_x, std::abs(out.at(k, "x")));
    largest_px = std::max(largest_px, std::abs(out.at(k, "px")));
  }
  // Round-off: each step's equations hold only as well as q_{k+1} can be represented, ε|x|, which
  // the discrete velocity (q_{k+1} − q_k)/h turns into a momentum residual (M + m) ε|x|/h; summed
  // over the steps in the worst case (as the cart travels to x ≈ 13 the balance closes to ~2e-12).
  const double eps = std::numeric_limits<double>::epsilon();
  const double round_off = 2000 * eps * ((1.0 + 0.3) * largest_x / h + largest_px);
  std::cout << "max |px - px(0) - px_work| over 2000 steps: " << worst << " (round-off bound " << round_off << ")\n";
  EXPECT_LE(worst, round_off);
  EXPECT_LT(out.at(2000, "px_work"), 0.0);
}

TEST(ForcedProblems, MalformedSchedulesNameTheirLine) {
  const auto message = [](const std::string& text) {
    const fs::path path = write_file("bad.csv", text);
    try {
      app::ControlSchedule::read(path.string(), {"u1", "u2"});
    } catch (const InvalidInput& e) {
      const std::string m = e.what();
      return m.substr(0, path.string().size()) == path.string() ? m.substr(path.string().size()) : m;
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("").rfind(":1: the controls file is empty", 0), 0u) << message("");
  EXPECT_EQ(message("t,u2,u1\n0,1,2\n1,2,3\n"), "accepted");  // any order of the names
  EXPECT_EQ(message("time,u1,u2\n").rfind(":1: the first column must be t", 0), 0u);
  EXPECT_EQ(message("t,u1,u3\n").rfind(":1: unknown control 'u3'", 0), 0u);
  EXPECT_EQ(message("t,u1\n").rfind(":1: the header has no column for control 'u2'", 0), 0u);
  EXPECT_EQ(message("t,u1,u1,u2\n").rfind(":1: control 'u1' appears twice", 0), 0u);
  EXPECT_EQ(message("t,u1,u2\n").rfind(":1: no rows after the header", 0), 0u);
  EXPECT_EQ(message("t,u1,u2\n0,1\n").rfind(":2: 2 values, expected 3", 0), 0u);
  EXPECT_EQ(message("t,u1,u2\n0,1,x\n").rfind(":2: value of 'u2' is not a number", 0), 0u);
  EXPECT_EQ(message("t,u1,u2\n0,1,2\n\ninf,1,2\n").rfind(":4: value of 't' must be a finite number", 0), 0u);
  EXPECT_EQ(message("t,u1,u2\n0,1,2\n0,1,2\n").rfind(":3: t = 0 is not after the previous row's t = 0", 0), 0u);
  const auto read_constant = app::ControlSchedule::constant({0.5, -2.0});
  EXPECT_EQ(read_constant.at<2>(-5.0), VecD<2>(0.5, -2.0));
  EXPECT_EQ(read_constant.at<2>(1e9), VecD<2>(0.5, -2.0));
  EXPECT_EQ(app::ControlSchedule().at<2>(1.0), VecD<2>::Zero());
}

}  // namespace
