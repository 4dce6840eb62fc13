// `mechint run three-body` and the Runge–Kutta methods on the command line: columns, the Jacobi
// constant column, agreement of the baselines with the VI, both Newton variants, and a collision
// reported as one line with no output file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace {

using mechint::testing::count_lines;
using mechint::testing::run_mechint;

std::vector<double> last_row(const std::string& csv) {
  std::string line, last;
  std::istringstream is(csv);
  while (std::getline(is, line))
    if (!line.empty()) last = line;
  std::vector<double> values;
  std::istringstream row(last);
  std::string cell;
  while (std::getline(row, cell, ',')) values.push_back(std::stod(cell));
  return values;
}

TEST(ThreeBodyCli, ColumnsAndJacobiConstant) {
  const auto r = run_mechint("run three-body --h 0.01 --t-end 0.1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "t,x,y,vx,vy,jacobi");
  // C = x² + y² + 2(1−μ)/r1 + 2μ/r2 − |v|² at the default start (0.5, 0), (0, 0.9).
  const double mu = 0.012150585609624;
  const double c0 = 0.25 + 2 * (1 - mu) / (0.5 + mu) + 2 * mu / (0.5 - mu) - 0.81;
  std::istringstream is(r.out);
  std::string header, first;
  std::getline(is, header);
  std::getline(is, first);
  EXPECT_NEAR(std::stod(first.substr(first.rfind(',') + 1)), c0, 1e-12);
}

TEST(ThreeBodyCli, EveryMethodReachesTheSameState) {
  // Over 2 time units at h = 1e-3 the VI (O(h²) ≈ 1e-6) and the baselines agree with rk78.
  const auto ref = run_mechint("run three-body --method rk78 --set rtol=1e-12 --set atol=1e-14 --h 0.001 --t-end 2");
  ASSERT_EQ(ref.status, 0) << ref.err;
  const std::vector<double> x_ref = last_row(ref.out);
  ASSERT_NEAR(x_ref[0], 2.0, 1e-12);
  for (const char* method : {"vi-midpoint", "vi-trapezoid", "rk4", "dopri5"}) {
    const auto r = run_mechint(std::string("run three-body --method ") + method + " --h 0.001 --t-end 2");
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    const std::vector<double> x = last_row(r.out);
    ASSERT_EQ(x.size(), x_ref.size());
    EXPECT_NEAR(x[0], 2.0, 1e-12) << method;
    for (int i = 1; i <= 4; ++i) EXPECT_NEAR(x[i], x_ref[i], 1e-5) << method << " column " << i;
  }
}

TEST(ThreeBodyCli, SimplifiedNewtonGivesTheSameRun) {
  const auto a = run_mechint("run three-body --h 0.01 --t-end 5 --set newton_tol=1e-13");
  const auto b = run_mechint("run three-body --h 0.01 --t-end 5 --set newton_tol=1e-13 --set newton=simplified");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const auto xa = last_row(a.out), xb = last_row(b.out);
  // Each step agrees to the solver tolerance (tests/test_three_body.cpp); over 500 steps the
  // differences accumulate but stay far below the discretization error (~1e-4).
  for (std::size_t i = 0; i < xa.size(); ++i) EXPECT_NEAR(xa[i], xb[i], 1e-7);
  EXPECT_EQ(run_mechint("run three-body --set newton=quasi").status, 2);
}

TEST(ThreeBodyCli, CollisionIsOneLineAndNoFile) {
  // Released at rest (inertially) relative to the larger primary, it falls straight in and hits it
  // (radius 0.0166 in Earth–Moon units) at t ≈ 0.035.
  const auto out = std::filesystem::temp_directory_path() / "mechint_three_body_collision.csv";
  std::filesystem::remove(out);
  for (const char* method : {"vi-midpoint", "rk4", "dopri5"}) {
    const auto r = run_mechint(std::string("run three-body --method ") + method +
                               " --set x=0.1 --set vy=-0.112150585609624 --set collision_radius=0.0166 --h 0.001 --t-end 1 --out " + out.string());
    EXPECT_NE(r.status, 0) << method;
    EXPECT_EQ(count_lines(r.err), 1) << method << ": " << r.err;
    EXPECT_EQ(r.err.find("nan"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << method;
  }
  // A start on a primary is refused at once.
  const auto r = run_mechint("run three-body --set x=-0.012150585609624 --set vy=0");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(ThreeBodyCli, BaselinesAreOfferedOnlyWhereTheyApply) {
  EXPECT_EQ(run_mechint("run kepler --method rk4 --t-end 0.1").status, 0);
  const auto r = run_mechint("run spherical-pendulum --method rk4 --t-end 0.1");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  const auto list = run_mechint("list");
  for (const char* name : {"three-body", "rk4", "dopri5", "rk78"}) EXPECT_NE(list.out.find(name), std::string::npos);
}

}  // namespace
