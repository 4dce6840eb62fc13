// The command line as users and scripts see it (DESIGN §4): output format, and bad input giving a
// non-zero exit, exactly one line on stderr and no output file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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

std::string slurp(const fs::path& p) {
  std::ifstream is(p);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

using Result = ::mechint::testing::CliResult;
using ::mechint::testing::count_lines;
using ::mechint::testing::leftover_temporaries;

Result mechint(const std::string& args) { return ::mechint::testing::run_mechint(args); }

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(line);
  std::string item;
  while (std::getline(ss, item, sep)) parts.push_back(item);
  return parts;
}

class BadInput : public ::testing::TestWithParam<std::string> {};

TEST_P(BadInput, ExitsNonZeroWithOneLineAndNoFile) {
  const fs::path out = fs::temp_directory_path() / ("mechint_bad_" + std::to_string(::getpid()) + ".csv");
  fs::remove(out);
  const Result r = mechint(GetParam() + " --out " + out.string());
  EXPECT_NE(r.status, 0) << GetParam();
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << GetParam();
  EXPECT_EQ(leftover_temporaries(out), 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInput,
    ::testing::Values("run no-such-system", "run kepler --method no-such-method", "run kepler --h 0",
                      "run kepler --h -0.1", "run kepler --set mu=nan", "run kepler --set x=abc",
                      "run kepler --set no_such_name=1", "run kepler --set mu",
                      "run pendulum-chain --set links=1001", "run spherical-pendulum --set z=0.1",
                      "run spherical-pendulum --set coordinates=angles --set z=0.1",
                      "run spherical-pendulum --set vz=0.5",
                      // Newton cannot converge at this step: the typed error, not a trajectory.
                      "run spherical-pendulum --h 3 --t-end 30"));

TEST(Cli, RunWritesHeaderAndRowsAndFollowsTheOrbit) {
  const fs::path out = fs::temp_directory_path() / ("mechint_ok_" + std::to_string(::getpid()) + ".csv");
  const Result r = mechint("run kepler --h 0.0062831853071795866 --t-end 6.2831853071795866 --output-every 0.62831853071795866 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = slurp(out);
  std::stringstream ss(csv);
  std::string line;
  std::getline(ss, line);
  EXPECT_EQ(line, "t,x,y,energy,J");
  std::vector<std::string> last;
  int rows = 0;
  while (std::getline(ss, line)) {
    last = split(line, ',');
    ++rows;
  }
  EXPECT_EQ(rows, 11);  // t = 0 and ten samples
  ASSERT_EQ(last.size(), 5u);
  // After one period of the e = 0.5 orbit the body is back at pericentre (0.5, 0) up to the
  // O(h²) error of 1000 steps per period.
  EXPECT_NEAR(std::stod(last[0]), 2 * M_PI, 1e-12);
  EXPECT_NEAR(std::stod(last[1]), 0.5, 1e-3);
  EXPECT_NEAR(std::stod(last[2]), 0.0, 1e-2);
  EXPECT_NEAR(std::stod(last[3]), -0.5, 1e-4);
  fs::remove(out);
}

TEST(Cli, ChainColumnsFollowTheNumberOfLinks) {
  const Result r = mechint("run pendulum-chain --set links=4 --set th3=0.2 --h 0.01 --t-end 0.01");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "t,th1,th2,th3,th4,energy");
}

TEST(Cli, ConstrainedSystemsReportMultipliers) {
  const Result r = mechint("run spherical-pendulum --h 0.01 --t-end 0.02");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "t,x,y,z,energy,Jz,constraint_residual,lambda1");
}

TEST(Cli, ListNamesEverySystem) {
  const Result r = mechint("list");
  ASSERT_EQ(r.status, 0);
  for (const char* name : {"harmonic-oscillator", "kepler", "spherical-pendulum", "pendulum-chain",
                           "vi-midpoint", "vi-trapezoid", "vi-first-order"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

}  // namespace
