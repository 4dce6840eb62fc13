// compose= on the symmetric methods beyond vi-midpoint (DESIGN §10) from the command line:
// vi-trapezoid (explicit where the model is separable), energy-momentum (energy and momentum still
// exact) and the impact rows' smooth flow (stormer-verlet, vi-trapezoid without walls). Their runs
// agree with rk78 at tight tolerances to what their order promises, `mechint list` shows the option,
// and each combination that cannot be honoured is refused with exit 2 and one line.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "cli_harness.hpp"

namespace mechint {
namespace {

using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

const std::string kRk78 = "--method rk78 --set rtol=1e-13 --set atol=1e-15 --h 0.05";

/// The largest difference of the q columns at the last row between `args` and the reference run
/// (rk78 at rtol 1e-13 unless said otherwise).
double final_difference(const std::string& system, const std::string& args, const std::vector<std::string>& q,
                        const std::string& reference = kRk78) {
  const std::string common = " --t-end 10 --output-every 10";
  const CliResult run = run_mechint("run " + system + " " + args + common);
  const CliResult ref = run_mechint("run " + system + " " + reference + common);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(ref.status, 0) << ref.err;
  if (run.status != 0 || ref.status != 0) return INFINITY;
  const auto a = parse_csv(run.out), b = parse_csv(ref.out);
  double worst = 0.0;
  for (const auto& name : q) worst = std::max(worst, std::abs(a[name].back() - b[name].back()));
  return worst;
}

TEST(ComposeCli, TrapezoidComposedOnKeplerReachesItsOrder) {
  // h = 0.05 on the e = 0.5 orbit: order 2 leaves ~1e-2, order 8 far below 1e-6.
  EXPECT_GT(final_difference("kepler", "--method vi-trapezoid --h 0.05", {"x", "y"}), 1e-4);
  EXPECT_LT(final_difference("kepler", "--method vi-trapezoid --set compose=kahan-li8 --h 0.05", {"x", "y"}),
            1e-6);
  EXPECT_LT(final_difference("kepler", "--method vi-trapezoid --set compose=yoshida4 --h 0.01", {"x", "y"}),
            1e-5);
}

TEST(ComposeCli, StormerVerletSmoothFlowComposed) {
  // The double pendulum without its wall: the impact driver's smooth flow, composed to order 4 and 6,
  // against vi-gauss8 at h = 0.0025 (the Runge–Kutta rows do not apply to a model with a wall).
  const std::vector<std::string> q = {"th1", "th2"};
  const std::string reference = "--method vi-gauss8 --h 0.0025";
  const double plain = final_difference("double-pendulum", "--method stormer-verlet --h 0.02", q, reference);
  const double four =
      final_difference("double-pendulum", "--method stormer-verlet --set compose=yoshida4 --h 0.02", q, reference);
  const double six =
      final_difference("double-pendulum", "--method stormer-verlet --set compose=kahan-li6 --h 0.02", q, reference);
  EXPECT_LT(four, 0.1 * plain);
  EXPECT_LT(six, 0.1 * four);
}

TEST(ComposeCli, ExplicitTrapezoidOnAModelFileIsTheNewtonTrajectory) {
  // Hénon–Heiles is separable: vi-trapezoid takes explicit steps on its kernels; with indicators=on
  // (a tracked deviation needs the stages' Hessians) it solves the same stage equations by Newton.
  // Same trajectory to round-off and Newton's tolerance.
  const std::string model = std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml";
  const std::string common = " --method vi-trapezoid --h 0.01 --t-end 5 --output-every 5";
  const CliResult a = run_mechint("run " + model + common);
  const CliResult b = run_mechint("run " + model + common + " --set indicators=on --set newton_tol=1e-14");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const auto ta = parse_csv(a.out), tb = parse_csv(b.out);
  for (const char* column : {"x", "y"}) EXPECT_NEAR(ta[column].back(), tb[column].back(), 1e-11) << column;
}

TEST(ComposeCli, EnergyMomentumComposedKeepsEnergyAndMomentum) {
  for (const char* scheme : {"yoshida4", "kahan-li6"}) {
    const CliResult r = run_mechint(std::string("run double-spherical-pendulum --method energy-momentum --set compose=") +
                                    scheme + " --h 0.01 --t-end 5 --output-every 0.1");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto t = parse_csv(r.out);
    for (double e : t["energy"]) EXPECT_NEAR(e, t["energy"].front(), 1e-10 * std::abs(t["energy"].front()) + 1e-9) << scheme;
    for (double j : t["Jz"]) EXPECT_NEAR(j, t["Jz"].front(), 1e-10 * std::abs(t["Jz"].front())) << scheme;
  }
}

TEST(ComposeCli, RefusedWhereItCannotBeHonoured) {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"run double-pendulum --set wall=1 --method stormer-verlet --set compose=yoshida4 --t-end 1", "impact"},
      {"run double-pendulum --set wall=1 --method vi-trapezoid --set compose=yoshida4 --t-end 1", "impact"},
      {"run kepler --method vi-trapezoid --set compose=yoshida4 --set adapt=energy --t-end 1", "adapt=energy"},
      {"run kepler --method vi-trapezoid --set compose=yoshida4 --set form=position --t-end 1", "momentum form"},
      {"run spherical-pendulum --method vi-trapezoid --set compose=yoshida4 --t-end 1", "compose"},
  };
  for (const auto& c : cases) {
    const CliResult r = run_mechint(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_EQ(testing::count_lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
}

TEST(ComposeCli, ListShowsComposeOnEverySymmetricMethod) {
  const CliResult r = run_mechint("list");
  ASSERT_EQ(r.status, 0);
  // Each method's line, then its "--set:" line of options.
  std::istringstream in(r.out);
  std::string line, method;
  std::map<std::string, std::string> options;
  while (std::getline(in, line)) {
    if (line.rfind("  ", 0) == 0 && line.rfind("    ", 0) != 0) method = line.substr(2, line.find("  ", 2) - 2);
    if (line.rfind("    --set:", 0) == 0 && !method.empty()) options[method] += line;
  }
  for (const char* m : {"vi-midpoint", "vi-trapezoid", "stormer-verlet", "energy-momentum"})
    EXPECT_NE(options[m].find("compose=none"), std::string::npos) << m << ": " << options[m];
  EXPECT_EQ(options["vi-first-order"].find("compose"), std::string::npos);
}

}  // namespace
}  // namespace mechint
