// `mechint run rigid-body`: columns, conserved spatial momentum and unit norm in the output, and a
// start off the unit sphere refused with one line and no file.
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

std::vector<std::vector<double>> rows(const std::string& csv) {
  std::vector<std::vector<double>> out;
  std::istringstream is(csv);
  std::string line;
  std::getline(is, line);  // header
  while (std::getline(is, line)) {
    std::vector<double> r;
    std::istringstream cells(line);
    std::string c;
    while (std::getline(cells, c, ',')) r.push_back(std::stod(c));
    out.push_back(r);
  }
  return out;
}

TEST(RigidBodyCli, ColumnsAndConservedMomentum) {
  for (const char* method : {"vi-midpoint", "vi-trapezoid"}) {
    const auto r = run_mechint(std::string("run rigid-body --method ") + method + " --h 0.01 --t-end 3");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "t,qs,qx,qy,qz,energy,Jx,Jy,Jz,constraint_residual,lambda1");
    const auto data = rows(r.out);
    ASSERT_EQ(data.size(), 301u);
    // π(0) = R(q0) 𝕀 ω0 = (0, 6, 12) up to O(h²) in the discrete momentum, then constant.
    EXPECT_NEAR(data[1][7], 6.0, 1e-2);
    EXPECT_NEAR(data[1][8], 12.0, 1e-2);
    for (const auto& row : data) {
      if (row[0] == 0.0) continue;
      for (int i = 6; i <= 8; ++i) EXPECT_NEAR(row[i], data[1][i], 1e-11 * 13.5) << method;
      EXPECT_LT(std::abs(row[9]), 1e-12);
      EXPECT_NEAR(row[5], 33.0, 0.1);
    }
  }
}

TEST(RigidBodyCli, StartOffTheUnitSphereIsRefused) {
  const auto out = std::filesystem::temp_directory_path() / "mechint_rigid_body_bad.csv";
  std::filesystem::remove(out);
  const auto r = run_mechint("run rigid-body --set qs=1.1 --out " + out.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
