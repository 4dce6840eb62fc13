// The numerical "silent wrong answers" of issue 63, each refused now: a pole of the potential crossed
// in one step (exit 0 with the energy from -0.5 to 285 on vi-trapezoid, 31 on rk4) is rejected by
// the energy balance on the explicit and Runge-Kutta paths as on the implicit ones (exit 3, one
// line naming the step and offering adapt=sundman or a smaller h), while the same motion resolved
// runs; a start whose coordinates have lost their precision (a pendulum at th1 = 1e17 rad stayed
// frozen with exit 0) is bad input (exit 2); `check` of a Lagrangian with a velocity missing says
// the mass matrix is singular and which coordinate has no kinetic term (exit 2) instead of
// "energy-momentum method: applies".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_harness.hpp"

namespace mechint {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

std::string write_model(const std::string& name, const std::string& text) {
  return testing::write_harness_file("silent_answers", name, text);
}

/// Lines of stderr other than the notice of a model compiled by this run (its one-line rule is
/// tested where the notice is made): what the failure itself prints.
int lines(const std::string& s) {
  int n = 0;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) n += line.find("compiled model") == std::string::npos;
  return n;
}

/// V = 1/(x - 1): from x = 0 at speed 1 (E = 0.5 - 1 = -0.5) the force 1/(x - 1)^2 pulls x into the
/// pole at x = 1, which the exact motion reaches in finite time; no fixed step resolves it.
std::string pole_model(const std::string& start_speed) {
  return write_model("pole-" + start_speed + ".toml", "name = \"pole\"\ncoordinates = [\"x\"]\n"
                                                      "lagrangian = \"0.5*x_dot^2 - 1/(x - 1)\"\n"
                                                      "[initial]\nx = 0\nx_dot = " + start_speed + "\n");
}

TEST(SilentAnswers, APoleCrossedInOneStepIsRejected) {
  const std::string model = pole_model("1");
  struct Case {
    std::string method, h;
  };
  for (const Case& c : {Case{"vi-trapezoid", "0.01"}, Case{"vi-trapezoid", "0.1"}, Case{"rk4", "0.1"},
                        Case{"rk4", "0.01"}, Case{"vi-midpoint", "0.01"}, Case{"vi-gauss4", "0.01"}}) {
    SCOPED_TRACE(c.method + " h = " + c.h);
    const fs::path out = fs::path(model).parent_path() / "pole.csv";
    const CliResult r = run_mechint("run " + model + " --method " + c.method + " --h " + c.h + " --t-end 10 --out " +
                                    out.string());
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("step "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("t = "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // The explicit and Runge-Kutta paths name the remedy.
  for (const std::string method : {"vi-trapezoid", "rk4"}) {
    const CliResult r = run_mechint("run " + model + " --method " + method + " --h 0.01 --t-end 10 --out -");
    EXPECT_NE(r.err.find("adapt=sundman"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("reduce the step size"), std::string::npos) << r.err;
  }
  // The adaptive Runge-Kutta methods do not cross it either: exit 3, one line.
  for (const std::string method : {"dopri5", "rk78"}) {
    const CliResult r = run_mechint("run " + model + " --method " + method + " --h 0.01 --t-end 10 --out -");
    EXPECT_EQ(r.status, 3) << method << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1) << method << "\n" << r.err;
  }
}

std::string undamped_model() { return pole_model("1"); }

TEST(SilentAnswers, APoleCrossedInAStepOrTwoIsRejectedWithForcesAndWallsAtAnyStep) {
  // The same pole with a damping force (the Runge-Kutta path holds the energy to the forces' work)
  // and with a wall far away (the impact driver's Störmer-Verlet and trapezoid flows).
  const std::string damped = write_model("pole-damped.toml", "name = \"pole-damped\"\ncoordinates = [\"x\"]\n"
                                                             "lagrangian = \"0.5*x_dot^2 - 1/(x - 1)\"\n"
                                                             "forces = [\"-0.01*x_dot\"]\n"
                                                             "[initial]\nx = 0\nx_dot = 1\n");
  const std::string walled = write_model("pole-wall.toml", "name = \"pole-wall\"\ncoordinates = [\"x\"]\n"
                                                           "lagrangian = \"0.5*x_dot^2 - 1/(x - 1)\"\n"
                                                           "unilateral = [\"x + 100\"]\n"
                                                           "[initial]\nx = 0\nx_dot = 1\n");
  // Over a range of steps, so that the crossing falls at every place in a step: within one step or
  // spread over two (the terms' size grows toward the pole, and each of two steps can keep within
  // the allowance of its own start) — docs/trustworthy-runs.md.
  struct Case {
    std::string model, method;
  };
  for (const Case& c : {Case{undamped_model(), "rk4"}, Case{damped, "rk4"}, Case{undamped_model(), "vi-trapezoid"},
                        Case{walled, "stormer-verlet"}, Case{walled, "vi-trapezoid"}}) {
    for (const std::string h : {"0.2", "0.1", "0.05", "0.02", "0.01", "0.005"}) {
      SCOPED_TRACE(fs::path(c.model).filename().string() + " " + c.method + " h = " + h);
      const fs::path out = fs::path(c.model).parent_path() / ("pole-" + c.method + "-" + h + ".csv");
      const CliResult r = run_mechint("run " + c.model + " --method " + c.method + " --h " + h + " --t-end 10 --out " +
                                      out.string());
      EXPECT_EQ(r.status, 3) << r.err;
      EXPECT_EQ(lines(r.err), 1) << r.err;
      EXPECT_NE(r.err.find("step "), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(out));
    }
  }
}

TEST(SilentAnswers, ForcedAndWalledMotionsThatAreResolvedRun) {
  // No false alarm from the balance with work: a strongly damped and a driven oscillator on rk4 at a
  // coarse step (the energy falls by half within a few steps), against the exact decay of the
  // damped one; the pendulum against its wall (elastic impacts) on both flows for 10^4 steps.
  const std::string damped = write_model("damped.toml", "name = \"damped\"\ncoordinates = [\"x\"]\n"
                                                        "lagrangian = \"0.5*x_dot^2 - 0.5*x^2\"\n"
                                                        "forces = [\"-0.5*x_dot + 3*sin(2*t)\"]\n"
                                                        "[initial]\nx = 1\n");
  const CliResult r = run_mechint("run " + damped + " --method rk4 --h 0.1 --t-end 50 --out -");
  ASSERT_EQ(r.status, 0) << r.err;
  // Driven at ω = 2 with damping 0.5: x → A sin(2t − φ), A = 3/√((1 − 4)² + 1) = 0.9487 once the
  // transient e^(−t/4) has died (t = 50: 4e-6).
  const auto t = parse_csv(r.out);
  double amplitude = 0.0;
  for (std::size_t i = 0; i < t.rows; ++i)
    if (t["t"][i] > 40.0) amplitude = std::max(amplitude, std::abs(t["x"][i]));
  EXPECT_NEAR(amplitude, 3.0 / std::sqrt(10.0), 2e-3);
  for (const std::string method : {"stormer-verlet", "vi-trapezoid"}) {
    const CliResult w = run_mechint("run " + std::string(MECHINT_SOURCE_DIR) + "/examples/models/double-pendulum-wall.toml --method " + method +
                                    " --h 0.01 --t-end 100 --output-every 10 --out -");
    ASSERT_EQ(w.status, 0) << method << "\n" << w.err;
  }
}

TEST(SilentAnswers, TheSameMotionAwayFromThePoleRuns) {
  // Moving away at speed 3 (E = 4.5 - 1 = 3.5 > 0: it escapes): every method runs to the end and
  // keeps the energy (a resolved run is not rejected).
  const std::string model = pole_model("-3");
  for (const std::string method : {"vi-trapezoid", "rk4", "dopri5", "rk78", "vi-midpoint"}) {
    const CliResult r = run_mechint("run " + model + " --method " + method + " --h 0.01 --t-end 10 --out -");
    ASSERT_EQ(r.status, 0) << method << "\n" << r.err;
    const auto t = parse_csv(r.out);
    for (const double e : t["energy"]) EXPECT_NEAR(e, 3.5, 1e-3) << method;
  }
}

TEST(SilentAnswers, ACoordinateThatLostItsPrecisionIsRefused) {
  struct Case {
    std::string args, names;
  };
  const std::string pendulum = write_model("pendulum.toml", "name = \"pendulum\"\ncoordinates = [\"th\"]\n"
                                                            "lagrangian = \"0.5*th_dot^2 + 9.81*cos(th)\"\n"
                                                            "[initial]\nth = 1e9\n");
  for (const Case& c : std::vector<Case>{
           {"run double-pendulum --set th1=1e17", "th1"},  // the case: doubles 16 rad apart
           {"run double-pendulum --set th2=-1e16", "th2"},
           {"run double-pendulum --set th1=1e12", "th1"},  // an angle: beyond 1e7 rad
           {"run acrobot --set th1=1e9", "th1"},
           {"run " + pendulum, "th"},
       }) {
    SCOPED_TRACE(c.args);
    const CliResult r = run_mechint(c.args + " --t-end 1 --out -");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("precision"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // A large coordinate that is not an angle keeps its relative precision: a harmonic oscillator of
  // amplitude 1e12 runs, and its period is the oscillator's.
  const std::string oscillator = write_model("wide.toml", "name = \"wide\"\ncoordinates = [\"x\"]\n"
                                                          "lagrangian = \"0.5*x_dot^2 - 0.5*x^2\"\n[initial]\nx = 1e12\n");
  const CliResult r = run_mechint("run " + oscillator + " --method vi-gauss4 --h 0.01 --t-end 6.28 --output-every 6.28 --out -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  EXPECT_NEAR(t["x"].back() / 1e12, std::cos(6.28), 1e-6);
  // An angle within 1e7 rad runs, as at its reduced value.
  const CliResult near = run_mechint("run double-pendulum --set th1=1e6 --t-end 1 --out -");
  EXPECT_EQ(near.status, 0) << near.err;
}

TEST(SilentAnswers, CheckTellsASingularMassMatrix) {
  const std::string missing = write_model("missing-velocity.toml", "name = \"missing\"\ncoordinates = [\"x\", \"y\"]\n"
                                                                   "parameters = { m = 2.0 }\n"
                                                                   "lagrangian = \"0.5*m*x_dot^2 - 0.5*(x^2 + y^2)\"\n"
                                                                   "[initial]\nx = 1\ny = 0.5\n");
  const CliResult r = run_mechint("check " + missing);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("missing-velocity.toml:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mass matrix"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("singular"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("coordinate y "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("applies"), std::string::npos) << r.out;
  // Every run of it is refused too (exit 2), which is why check must not pass it.
  EXPECT_EQ(run_mechint("run " + missing + " --t-end 1 --out -").status, 2);

  // Singular without a missing velocity: both velocities only in x_dot + y_dot.
  const std::string sum = write_model("sum.toml", "name = \"sum\"\ncoordinates = [\"x\", \"y\"]\n"
                                                  "lagrangian = \"0.5*(x_dot + y_dot)^2 - 0.5*x^2 - 0.5*y^2\"\n"
                                                  "[initial]\nx = 1\n");
  const CliResult s = run_mechint("check " + sum);
  EXPECT_EQ(s.status, 2) << s.out << s.err;
  EXPECT_EQ(lines(s.err), 1) << s.err;
  EXPECT_NE(s.err.find("singular"), std::string::npos) << s.err;

  // A coordinate without a kinetic term that a constraint determines: the bordered matrix is
  // regular, the runs integrate it, and check passes it.
  const std::string determined = write_model("determined.toml", "name = \"determined\"\ncoordinates = [\"x\", \"y\"]\n"
                                                                "lagrangian = \"0.5*x_dot^2 - y\"\n"
                                                                "constraints = [\"y - x^2\"]\n"
                                                                "[initial]\nx = 0.5\ny = 0.25\n");
  const CliResult d = run_mechint("check " + determined);
  EXPECT_EQ(d.status, 0) << d.err;
  // A regular model is reported as before.
  const CliResult ok = run_mechint("check " + std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("mass matrix: constant"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace mechint
