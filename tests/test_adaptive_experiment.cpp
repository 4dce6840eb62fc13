// `mechint reproduce adaptive` through the command (src/experiments/adaptive.cpp): adapt=sundman
// reaches the order of its rule on every problem (measured by the experiment over its fictive
// steps, against Kepler's exact solution and the Arenstorf orbit's closure); on Kepler e = 0.99 the
// fixed-step rule of the same order needs at least ten times the steps for the same error (steps,
// not CPU time: independent of the machine); over 10⁴ orbits the energy error of adapt=sundman
// stays in its band while dopri5's grows (the control that the measure sees a drift).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::read_file;
using mechint::testing::run_mechint;

TEST(AdaptiveExperiment, OrdersCostAndLongRunEnergy) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_adaptive_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = run_mechint("reproduce adaptive --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"report.md", "results.json", "work_precision.csv", "energy.csv"}) EXPECT_TRUE(fs::exists(dir / f)) << f;
  const auto j = nlohmann::json::parse(read_file(dir / "results.json"));

  for (const char* problem : {"kepler-e0.9", "kepler-e0.99", "arenstorf"})
    for (const auto& [rule, order] : std::vector<std::pair<std::string, double>>{{"vi-midpoint", 2}, {"vi-gauss4", 4}}) {
      const auto& s = j["summary"][problem][rule];
      EXPECT_NEAR(s["sundman_order"].get<double>(), order, 0.3) << problem << " " << rule;
      // Fewer steps than the fixed step for the same error on every problem, by far on e = 0.99.
      EXPECT_GT(s["steps_ratio_fixed_over_sundman"].get<double>(), 3.0) << problem << " " << rule;
    }
  EXPECT_GE(j["summary"]["kepler-e0.99"]["vi-gauss4"]["steps_ratio_fixed_over_sundman"].get<double>(), 10.0);
  EXPECT_FALSE(j["summary"]["kepler-e0.99"]["vi-gauss4"]["ratios_are_lower_bounds"].get<bool>());

  const auto& energy = j["energy_over_1e4_orbits"];
  const auto& sundman = energy["vi-gauss4 adapt=sundman h=0.1"];
  const auto& dopri5 = energy["dopri5 rtol=1e-10"];
  EXPECT_GT(sundman["first_tenth"].get<double>(), 0.0);
  EXPECT_LT(sundman["last_tenth"].get<double>(), 1.5 * sundman["first_tenth"].get<double>());
  EXPECT_GT(dopri5["last_tenth"].get<double>(), 3.0 * dopri5["first_tenth"].get<double>());
  fs::remove_all(dir);
}

}  // namespace
