// `mechint run double-pendulum` and `point-mass-wall` (DESIGN §4): columns, no NaN, impacts keep the
// state feasible, and a start behind the wall is one clear error line with no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using Result = ::mechint::testing::CliResult;

Result mechint(const std::string& args) { return ::mechint::testing::run_mechint(args); }

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream is(p);
  std::string line;
  while (std::getline(is, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

fs::path temp_csv(const std::string& tag) {
  return fs::temp_directory_path() / ("mechint_impacts_" + tag + "_" + std::to_string(::getpid()) + ".csv");
}

TEST(ImpactsCli, DoublePendulumWithWallWritesTheDocumentedColumns) {
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    for (const std::string law : {"dtec", "ctec", "mhc"}) {
      const fs::path out = temp_csv(method + law);
      const Result r = mechint("run double-pendulum --method " + method + " --h 0.058 --t-end 7.54 --set wall=1 --set impact=" +
                               law + " --out " + out.string());
      ASSERT_EQ(r.status, 0) << r.err;
      const auto rows = read_csv(out);
      ASSERT_EQ(rows.size(), 132u);  // header + 131 rows
      EXPECT_EQ(rows[0], (std::vector<std::string>{"t", "th1", "th2", "p1", "p2", "energy", "htilde", "impacts"}));
      double impacts = 0.0;  // the count of impacts so far never decreases
      for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), 8u);
        EXPECT_GE(std::stod(rows[i][7]), impacts);
        impacts = std::stod(rows[i][7]);
        for (const auto& c : rows[i]) ASSERT_TRUE(std::isfinite(std::stod(c))) << c;
        const double th1 = std::stod(rows[i][1]), th2 = std::stod(rows[i][2]);
        EXPECT_GE(std::sin(th1) + std::sin(th1 + th2) + 0.25, -1e-12);  // never behind the wall
      }
      EXPECT_GT(impacts, 0.0);
      fs::remove(out);
    }
  }
}

TEST(ImpactsCli, WithoutAWallNoImpactsAreCounted) {
  const fs::path out = temp_csv("nowall");
  const Result r = mechint("run double-pendulum --method vi-trapezoid --h 0.05 --t-end 1 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_csv(out)[0], (std::vector<std::string>{"t", "th1", "th2", "p1", "p2", "energy", "htilde"}));
  fs::remove(out);
}

TEST(ImpactsCli, PointMassWallColumns) {
  const fs::path out = temp_csv("pm");
  const Result r = mechint("run point-mass-wall --method vi-trapezoid --h 0.1 --t-end 5 --set impact=ctec --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = read_csv(out);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"t", "q", "p", "energy", "impacts"}));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(std::stod(rows[i][1]), 0.0);
    EXPECT_NEAR(std::stod(rows[i][3]), 1.0, 1e-12);  // CTEC keeps H exactly for this system
  }
  fs::remove(out);
}

TEST(ImpactsCli, StartBehindTheWallIsOneErrorLineAndNoFile) {
  for (const std::string args : {"run point-mass-wall --method vi-trapezoid --set q=-0.5",
                                 "run double-pendulum --method stormer-verlet --set wall=1 --set th1=-1 --set th2=0",
                                 "run double-pendulum --method vi-trapezoid --set impact=elastic"}) {
    const fs::path out = temp_csv("bad");
    fs::remove(out);
    const Result r = mechint(args + " --out " + out.string());
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
