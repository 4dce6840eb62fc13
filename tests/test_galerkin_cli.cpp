// The Galerkin rules and the compositions from the command line, on built-in systems (their kernels
// by AD) and on a model file (its generated kernels): offered where they apply, refused with exit 2
// and one line where they do not, and their runs agree with rk78 at tight tolerances (another method
// on another formulation) to what their order promises.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "cli_harness.hpp"

namespace mechint {
namespace {

using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

/// The last row's q columns of `args` and of rk78 at rtol 1e-13 on the same system.
double final_difference_from_rk78(const std::string& system, const std::string& args, const std::vector<std::string>& q) {
  const std::string common = " --t-end 10 --output-every 10";
  const CliResult run = run_mechint("run " + system + " " + args + common);
  const CliResult ref = run_mechint("run " + system + " --method rk78 --set rtol=1e-13 --set atol=1e-15 --h 0.05" + common);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(ref.status, 0) << ref.err;
  if (run.status != 0 || ref.status != 0) return INFINITY;
  const auto a = parse_csv(run.out), b = parse_csv(ref.out);
  double worst = 0.0;
  for (const auto& name : q) worst = std::max(worst, std::abs(a[name].back() - b[name].back()));
  return worst;
}

TEST(GalerkinCli, KeplerRunsAgreeWithRk78ToTheirOrder) {
  // h = 0.05 on the e = 0.5 orbit: order 2 leaves an error of ~1e-2, order 6 and 8 far below 1e-6.
  EXPECT_LT(final_difference_from_rk78("kepler", "--method vi-gauss6 --h 0.05", {"x", "y"}), 1e-6);
  EXPECT_LT(final_difference_from_rk78("kepler", "--method vi-gauss8 --h 0.05", {"x", "y"}), 1e-8);
  EXPECT_LT(final_difference_from_rk78("kepler", "--method vi-midpoint --set compose=kahan-li8 --h 0.05", {"x", "y"}), 1e-6);
  EXPECT_GT(final_difference_from_rk78("kepler", "--method vi-midpoint --h 0.05", {"x", "y"}), 1e-4);
}

TEST(GalerkinCli, AngularMomentumColumnIsConserved) {
  const CliResult r = run_mechint("run kepler --method vi-gauss4 --h 0.05 --t-end 100 --output-every 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  for (double j : t["J"]) EXPECT_NEAR(j, t["J"].front(), 1e-13);
}

TEST(GalerkinCli, DoublePendulumFromMomentaWithoutWall) {
  const CliResult r = run_mechint("run double-pendulum --method vi-gauss6 --h 0.01 --t-end 5 --output-every 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  for (double e : t["energy"]) EXPECT_NEAR(e, t["energy"].front(), 1e-9);
}

TEST(GalerkinCli, ModelFileRunsOnItsKernels) {
  const CliResult r = run_mechint(std::string("run ") + MECHINT_SOURCE_DIR +
                                  "/examples/models/henon-heiles.toml --method vi-gauss4 --t-end 5 --output-every 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  for (double e : t["energy"]) EXPECT_NEAR(e, t["energy"].front(), 1e-8);
}

TEST(GalerkinCli, LobattoKeepsTheConstraintsOfACartesianModel) {
  for (const char* method : {"vi-lobatto4", "vi-lobatto6"}) {
    const CliResult r =
        run_mechint(std::string("run spherical-pendulum --method ") + method + " --h 0.01 --t-end 10 --output-every 0.5");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto t = parse_csv(r.out);
    ASSERT_TRUE(t.has("lambda1")) << method;
    for (double g : t["constraint_residual"]) EXPECT_LE(g, 1e-13) << method;
    for (double e : t["energy"]) EXPECT_NEAR(e, t["energy"].front(), 1e-6) << method;
    for (double j : t["Jz"]) EXPECT_NEAR(j, t["Jz"].front(), 1e-12) << method;
  }
}

TEST(GalerkinCli, RefusedWhereTheyDoNotApply) {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"run spherical-pendulum --method vi-gauss4 --t-end 1", "not offered"},       // constrained
      {"run spherical-pendulum --set compose=yoshida4 --t-end 1", "compose"},       // constrained
      {"run double-pendulum --set wall=1 --method vi-gauss4 --t-end 1", "not offered"},  // walls
      {"run kepler --set compose=yoshida4 --set form=position --t-end 1", "momentum form"},
      {"run kepler --set compose=yoshida5 --t-end 1", "compose"},
      {"run kepler --method vi-first-order --set compose=yoshida4 --t-end 1", "compose"},  // not symmetric
      {"run kepler --method vi-gauss4 --set check_ratio=2 --t-end 1", "check_ratio"},
  };
  for (const auto& c : cases) {
    const CliResult r = run_mechint(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_EQ(testing::count_lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
}

TEST(GalerkinCli, ListShowsTheMethodsTheirOrderAndCompose) {
  const CliResult r = run_mechint("list");
  ASSERT_EQ(r.status, 0);
  for (const char* text : {"vi-gauss4", "vi-gauss6", "vi-gauss8", "order 8", "compose=none"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
}

}  // namespace
}  // namespace mechint
