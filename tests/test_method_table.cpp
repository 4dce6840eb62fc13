// The method table as the command line shows it: every system runs with its default settings, its
// default method is one it offers, every method it offers runs, and an option that does not apply
// to the chosen method is refused with exit 2 and one line (DESIGN §4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using Result = ::mechint::testing::CliResult;
using ::mechint::testing::count_lines;
using ::mechint::testing::leftover_temporaries;

Result mechint(const std::string& args) { return ::mechint::testing::run_mechint(args); }

/// System name → (offered methods, default method), read from `mechint list`.
struct Offer {
  std::vector<std::string> methods;
  std::string default_method;
};

std::map<std::string, Offer> systems_from_list() {
  const Result r = mechint("list");
  EXPECT_EQ(r.status, 0);
  std::map<std::string, Offer> systems;
  std::stringstream ss(r.out);
  std::string line, current;
  bool in_systems = false;
  while (std::getline(ss, line)) {
    if (line == "systems:") {
      in_systems = true;
      continue;
    }
    if (!line.empty() && line[0] != ' ') in_systems = false;
    if (!in_systems) continue;
    if (line.rfind("  ", 0) == 0 && line[2] != ' ') {
      current = line.substr(2, line.find(' ', 2) - 2);
      systems[current];
    } else if (line.rfind("    methods: ", 0) == 0) {
      std::stringstream ms(line.substr(13));
      std::string m;
      while (std::getline(ms, m, ',')) {
        m.erase(0, m.find_first_not_of(' '));
        const auto mark = m.find(" (default)");
        if (mark != std::string::npos) {
          m = m.substr(0, mark);
          systems[current].default_method = m;
        }
        systems[current].methods.push_back(m);
      }
    }
  }
  return systems;
}

TEST(MethodTable, EverySystemRunsWithItsDefaultsAndItsDefaultMethodIsOffered) {
  const auto systems = systems_from_list();
  ASSERT_EQ(systems.size(), 16u);  // the nine of the source documents, the five forced ones, the two nonholonomic ones
  for (const auto& [name, offer] : systems) {
    ASSERT_FALSE(offer.methods.empty()) << name;
    EXPECT_NE(std::find(offer.methods.begin(), offer.methods.end(), offer.default_method), offer.methods.end())
        << name << " default " << offer.default_method;
    const Result r = mechint("run " + name + " --t-end 0.05");
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out.rfind("t,", 0), 0u) << name;
    EXPECT_GE(count_lines(r.out), 2) << name;
  }
}

TEST(MethodTable, EveryOfferedMethodRuns) {
  for (const auto& [name, offer] : systems_from_list()) {
    for (const auto& method : offer.methods) {
      const Result r = mechint("run " + name + " --method " + method + " --h 0.01 --t-end 0.03");
      EXPECT_EQ(r.status, 0) << name << " " << method << ": " << r.err;
      EXPECT_EQ(count_lines(r.out), 5) << name << " " << method;  // header, t = 0 and three steps
    }
  }
}

TEST(MethodTable, TheImpactSystemsRunWithDefaultSettings) {
  for (const char* name : {"double-pendulum", "point-mass-wall"}) {
    const Result r = mechint(std::string("run ") + name);
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(count_lines(r.out), 1002) << name;  // header, t = 0 and 1000 steps of the default h
  }
}

TEST(MethodTable, AnOptionThatDoesNotApplyIsOneLineAndExitTwo) {
  const fs::path out = fs::temp_directory_path() / ("mechint_table_bad_" + std::to_string(::getpid()) + ".csv");
  for (const std::string args : {"run kepler --set rtol=1e-9",                         // VI has no tolerance
                                 "run kepler --method rk4 --set form=position",        // RK has no form
                                 "run kepler --method dopri5 --set newton=simplified",  // nor a Newton
                                 "run double-spherical-pendulum --method energy-momentum --set init=source",
                                 "run point-mass-wall --set newton_tol=1e-12"}) {
    fs::remove(out);
    const Result r = mechint(args + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("does not apply to method"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
  // The same options are accepted by the methods they belong to.
  EXPECT_EQ(mechint("run kepler --method dopri5 --set rtol=1e-9 --t-end 0.1").status, 0);
  EXPECT_EQ(mechint("run kepler --set form=position --t-end 0.1").status, 0);
}

TEST(MethodTable, AMethodNotOfferedNamesTheOffered) {
  const Result r = mechint("run spherical-pendulum --set coordinates=angles --method dae");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("vi-midpoint"), std::string::npos) << r.err;
}

}  // namespace

namespace {

TEST(ExitCodes, NumericalFailuresExitThreeAndBadStartsTwo) {
  const fs::path out = fs::temp_directory_path() / ("mechint_codes_" + std::to_string(::getpid()) + ".csv");
  struct Case {
    std::string args;
    int status;
  };
  for (const Case& c : {
           // Falls straight into the Earth (radius 0.0166) at t ≈ 0.035: the model's domain check.
           Case{"run three-body --set x=0.1 --set vy=-0.112150585609624 --set collision_radius=0.0166 --h 0.001", 3},
           // A start on a primary is bad input.
           Case{"run three-body --set x=-0.012150585609624 --set vy=0", 2},
           // The energy overflows at the start itself: a start the model cannot be evaluated at.
           Case{"run harmonic-oscillator --set q=1e200", 2},
       }) {
    fs::remove(out);
    const Result r = mechint(c.args + " --t-end 1 --out " + out.string());
    EXPECT_EQ(r.status, c.status) << c.args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
    EXPECT_EQ(leftover_temporaries(out), 0) << c.args;
  }
}

}  // namespace
