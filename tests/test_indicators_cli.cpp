// `--set indicators=on` (DESIGN §9, docs/chaos-indicators.md): the columns megno and lyapunov on
// built-in systems (their kernels by AD) and model files (their generated kernels), for the
// second-order rules and the Galerkin rules, with holonomic constraints too; the trajectory columns are those of the same run
// without indicators (the midpoint rule as the one-stage Gauss rule: the same discrete Lagrangian);
// refused with exit 2 and one line where the tangent map does not exist. rk4, dopri5 and rk78 carry the
// deviation by the variational equations of the ODE: the same regular values, rk4's motion bit for
// bit that of the run without indicators, and on a chaotic orbit the Lyapunov estimate of the
// variational integrator's exact tangent map over the same stretch of orbit. (A checkpointed run with
// indicators resumes to the same bytes: test_checkpoint.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "cli_harness.hpp"

namespace mechint {
namespace {

using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

TEST(IndicatorsCli, KeplerColumnsTendToTheirRegularValues) {
  // 200 orbits of the e = 0.5 orbit (period 2π).
  const CliResult r = run_mechint("run kepler --method vi-gauss4 --set indicators=on --h 0.05 --t-end 1256.6 "
                                  "--output-every 100");
  ASSERT_EQ(r.status, 0) << r.err;
  auto t = parse_csv(r.out);
  ASSERT_TRUE(t.has("megno") && t.has("lyapunov") && t.has("fli")) << r.out.substr(0, 200);
  // FLI is the running maximum of ℓ = λτ: never decreasing, at least the last ℓ.
  for (std::size_t i = 1; i < t["fli"].size(); ++i) EXPECT_GE(t["fli"][i], t["fli"][i - 1]);
  EXPECT_GE(t["fli"].back(), t["lyapunov"].back() * t["t"].back() - 1e-9);
  EXPECT_EQ(t["megno"].front(), 0.0);
  EXPECT_NEAR(t["megno"].back(), 2.0, 0.1);
  EXPECT_LT(std::abs(t["lyapunov"].back()), 0.01);
}

TEST(IndicatorsCli, TrajectoryIsTheRunWithoutIndicators) {
  for (const std::string method : {"vi-midpoint", "vi-trapezoid", "vi-gauss6"}) {
    const std::string run = "run kepler --method " + method + " --h 0.05 --t-end 20 --output-every 1";
    const CliResult plain = run_mechint(run), with = run_mechint(run + " --set indicators=on");
    ASSERT_EQ(plain.status, 0) << plain.err;
    ASSERT_EQ(with.status, 0) << with.err;
    auto a = parse_csv(plain.out), b = parse_csv(with.out);
    // The same discrete Lagrangian solved by another Newton: agreement to Newton's tolerance.
    for (const char* column : {"x", "y", "energy", "J"}) {
      ASSERT_EQ(a[column].size(), b[column].size());
      for (std::size_t i = 0; i < a[column].size(); ++i)
        EXPECT_NEAR(a[column][i], b[column][i], 1e-9) << method << " " << column << " row " << i;
    }
  }
}

TEST(IndicatorsCli, ModelFileChaoticAboveOneSixth) {
  // Hénon–Heiles at E = 1/6 from (0, -0.1) (chaotic) against E = 1/12 from the origin (regular).
  const std::string file = std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml";
  const double y = -0.1, potential = 0.5 * y * y - y * y * y / 3.0, x_dot = std::sqrt(2.0 * (1.0 / 6 - potential));
  std::ostringstream chaotic;
  chaotic.precision(17);
  chaotic << "run " << file << " --set indicators=on --set y=" << y << " --set x_dot=" << x_dot
          << " --set y_dot=0 --h 0.02 --t-end 2000 --output-every 2000";
  const CliResult c = run_mechint(chaotic.str());
  std::ostringstream regular;
  regular.precision(17);
  regular << "run " << file << " --set indicators=on --set y=0 --set x_dot=" << std::sqrt(1.0 / 6)
          << " --set y_dot=0 --h 0.02 --t-end 2000 --output-every 2000";
  const CliResult r = run_mechint(regular.str());
  ASSERT_EQ(c.status, 0) << c.err;
  ASSERT_EQ(r.status, 0) << r.err;
  auto tc = parse_csv(c.out), tr = parse_csv(r.out);
  EXPECT_GT(tc["megno"].back(), 10.0);
  EXPECT_NEAR(tr["megno"].back(), 2.0, 0.2);
}

TEST(IndicatorsCli, ConstrainedSphericalPendulumIsRegular) {
  // The spherical pendulum in Cartesian coordinates with |q| = l (a constraint, its multiplier and the
  // momentum projection in the tangent map) is integrable (energy and J_z): its orbits are
  // quasi-periodic, ⟨Y⟩ → 2 and the Lyapunov estimate → 0, for the trapezoid rule (RATTLE) and the
  // Lobatto rules alike, on the built-in (kernels by AD) and on the model file of the same pendulum
  // (generated kernels). About 300 periods.
  const std::string file = std::string(MECHINT_SOURCE_DIR) + "/examples/models/spherical-pendulum.toml";
  for (const std::string system : {std::string("spherical-pendulum"), file})
  for (const std::string method : {"vi-trapezoid", "vi-lobatto4"}) {
    const CliResult r = run_mechint("run " + system + " --method " + method +
                                    " --set indicators=on --h 0.01 --t-end 600 --output-every 100");
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    auto t = parse_csv(r.out);
    ASSERT_TRUE(t.has("megno") && t.has("constraint_residual")) << r.out.substr(0, 200);
    EXPECT_NEAR(t["megno"].back(), 2.0, 0.1) << method;
    EXPECT_LT(std::abs(t["lyapunov"].back()), 0.02) << method;
    for (const double g : t["constraint_residual"]) EXPECT_LE(std::abs(g), 1e-10) << method;
  }
}

TEST(IndicatorsCli, RefusedWhereThereIsNoTangentMap) {
  for (const std::string args : {"run double-spherical-pendulum --method energy-momentum --set indicators=on",
                                 "run spherical-pendulum --method dae --set indicators=on",
                                 "run kepler --method vi-first-order --set indicators=on",
                                 "run spherical-pendulum --method vi-midpoint --set indicators=on",
                                 "run kepler --set indicators=on --set form=position",
                                 "run kepler --set indicators=maybe"}) {
    const CliResult r = run_mechint(args + " --t-end 1");
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("indicators"), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

TEST(IndicatorsCli, RungeKuttaBaselinesCarryTheDeviationByTheVariationalEquations) {
  // Kepler, 200 orbits of the e = 0.5 orbit: ⟨Y⟩ → 2, λ → 0, for rk4, dopri5 (stepped without its
  // dense output) and rk78.
  for (const std::string method : {"rk4 --h 0.01", "dopri5 --set rtol=1e-10 --set atol=1e-12 --h 0.05",
                                   "rk78 --set rtol=1e-10 --set atol=1e-12 --h 0.05"}) {
    const CliResult r = run_mechint("run kepler --method " + method + " --set indicators=on --t-end 1256.6 "
                                    "--output-every 100");
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    auto t = parse_csv(r.out);
    ASSERT_TRUE(t.has("megno") && t.has("lyapunov") && t.has("fli")) << r.out.substr(0, 200);
    EXPECT_EQ(t["megno"].front(), 0.0) << method;
    EXPECT_NEAR(t["megno"].back(), 2.0, 0.1) << method;
    EXPECT_LT(std::abs(t["lyapunov"].back()), 0.01) << method;
  }
  // rk4's motion is that of the run without indicators, bit for bit (a model file: both runs on its
  // kernels; a built-in's run without indicators takes its fixed-size row).
  const std::string run = "run " + std::string(MECHINT_SOURCE_DIR) +
                          "/examples/models/henon-heiles.toml --method rk4 --h 0.01 --t-end 20 --output-every 1";
  const CliResult plain = run_mechint(run), with = run_mechint(run + " --set indicators=on");
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_EQ(with.status, 0) << with.err;
  auto a = parse_csv(plain.out), b = parse_csv(with.out);
  for (const char* column : {"x", "y", "energy"}) {
    ASSERT_TRUE(a.has(column) && b.has(column)) << column << ": " << plain.out.substr(0, 100);
    ASSERT_EQ(a[column].size(), b[column].size());
    for (std::size_t i = 0; i < a[column].size(); ++i) EXPECT_EQ(a[column][i], b[column][i]) << column << " row " << i;
  }
}

TEST(IndicatorsCli, RungeKuttaAndTheExactTangentMapMeasureTheSameStretching) {
  // Hénon–Heiles at E = 1/6 from (0, -0.1), chaotic: over t = 150, before round-off separates the two
  // computed orbits, rk78's variational equations and vi-gauss8's exact tangent map stretch the same
  // initial deviation alike — two formulations of the linearised flow on the same stretch of orbit.
  const std::string file = std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml";
  const double y = -0.1, potential = 0.5 * y * y - y * y * y / 3.0, x_dot = std::sqrt(2.0 * (1.0 / 6 - potential));
  std::ostringstream start;
  start.precision(17);
  start << " --set indicators=on --set y=" << y << " --set x_dot=" << x_dot << " --set y_dot=0 --t-end 150 --output-every 150";
  const CliResult rk = run_mechint("run " + file + " --method rk78 --set rtol=1e-13 --set atol=1e-15 --h 0.01" + start.str());
  const CliResult vi = run_mechint("run " + file + " --method vi-gauss8 --h 0.01" + start.str());
  ASSERT_EQ(rk.status, 0) << rk.err;
  ASSERT_EQ(vi.status, 0) << vi.err;
  auto a = parse_csv(rk.out), b = parse_csv(vi.out);
  const double l_rk = a["lyapunov"].back() * a["t"].back(), l_vi = b["lyapunov"].back() * b["t"].back();
  EXPECT_GT(l_vi, 5.0);  // stretched by more than e^5: a chaotic orbit, not a flat measure
  EXPECT_NEAR(l_rk, l_vi, 1e-4 * l_vi);
  EXPECT_NEAR(a["megno"].back(), b["megno"].back(), 1e-3 * std::abs(b["megno"].back()));
}

}  // namespace
}  // namespace mechint
