// `mechint reproduce nonholonomic` through the command: its files, the orders it reports (2 for q
// and for the multiplier), the discrete constraint at round-off, energy over 10⁶ steps no worse than
// over the first 10⁴, and its disk reference columns against the closed form written out here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::parse_csv;
using mechint::testing::read_file;
using mechint::testing::run_mechint;

TEST(NonholonomicExperiment, ReportsOrdersEnergyAndResiduals) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_nonholonomic_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = run_mechint("reproduce nonholonomic --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"report.md", "results.json", "nonholonomic_chaplygin-sleigh.csv", "nonholonomic_rolling-disk.csv"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;

  const auto j = nlohmann::json::parse(read_file(dir / "results.json"));
  ASSERT_EQ(j["summary"].size(), 4u);
  for (const auto& s : j["summary"]) {
    const std::string what = s["system"].get<std::string>() + " " + s["method"].get<std::string>();
    EXPECT_NEAR(s["position_order"].get<double>(), 2.0, 0.1) << what;
    // The sleigh's multiplier converges at order 2. The disk's, m R φ̇ θ̇ (−sin θ, cos θ) at the state,
    // is as accurate as φ̇ since θ is exact: O(h⁴) for the midpoint rule, round-off for the trapezoid.
    if (s["system"] == "chaplygin-sleigh") {
      EXPECT_NEAR(s["multiplier_order"].get<double>(), 2.0, 0.2) << what;
    } else if (s["method"] == "vi-midpoint") {
      EXPECT_GT(s["multiplier_order"].get<double>(), 3.5) << what;
    }
    EXPECT_LT(s["max_nonholonomic_residual"].get<double>(), 1e-11) << what;
    EXPECT_LT(s["max_energy_error"].get<double>(), 1e-5) << what;
    EXPECT_LE(s["energy_error_1e6_steps"].get<double>(), 1.5 * s["energy_error_first_1e4_steps"].get<double>() + 1e-9)
        << what;
  }

  for (const auto& row : j["rows"]) {
    if (row["system"] == "rolling-disk" && row["method"] == "vi-trapezoid") {
      EXPECT_LT(row["multiplier_error"].get<double>(), 1e-11) << row.dump();
    }
  }

  // The disk's reference is the circle x = 2 sin t, y = 2 (1 − cos t), θ = t, φ = 2 t; the methods stay
  // within O(h²) of it at h = 0.05 over t ≤ 30.
  const auto disk = parse_csv(read_file(dir / "nonholonomic_rolling-disk.csv"));
  ASSERT_GT(disk["t"].size(), 100u);
  for (std::size_t i = 0; i < disk["t"].size(); ++i) {
    const double t = disk["t"][i];
    EXPECT_NEAR(disk["x_reference"][i], 2.0 * std::sin(t), 1e-10);
    EXPECT_NEAR(disk["y_reference"][i], 2.0 * (1.0 - std::cos(t)), 1e-10);
    EXPECT_NEAR(disk["phi_reference"][i], 2.0 * t, 1e-10);
    for (const char* m : {"vi-midpoint", "vi-trapezoid"}) {
      EXPECT_NEAR(disk[std::string("x_") + m][i], disk["x_reference"][i], 0.05) << m;
      EXPECT_NEAR(disk[std::string("theta_") + m][i], t, 1e-10) << m;
    }
  }
  const auto sleigh = parse_csv(read_file(dir / "nonholonomic_chaplygin-sleigh.csv"));
  for (const char* m : {"vi-midpoint", "vi-trapezoid"})
    EXPECT_NEAR(sleigh[std::string("y_") + m].back(), sleigh["y_reference"].back(), 0.05) << m;
  fs::remove_all(dir);
}

}  // namespace
