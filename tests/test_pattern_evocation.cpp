// 003 §4 on mechint's own runs: for the regular pattern II the locked-velocity average and the
// outer mass's azimuth rate agree over 300 s; for pattern I the rates found for the D_2, D_3, D_4
// patterns satisfy the resonance relation (eq. 4.1) with our γ_c and F; the estimates lie near the
// thesis's values (independent data from MEXX runs).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

#include "experiments/dsp_runs.hpp"
#include "experiments/pattern_analysis.hpp"

namespace mechint::experiments {
namespace {

TEST(PatternEvocation, PatternTwoLockedAverageMatchesTheOuterAzimuthRateOver300s) {
  const DspRun run = energy_momentum_run("pattern-2", 0.002, 300.0, 0.01);
  const analysis::CriticalRateEstimates e = analysis::estimate_critical_rate(run.trace, {}, run.jz0);
  EXPECT_NEAR(e.locked_average, e.azimuth_rate_outer, 0.005 * e.azimuth_rate_outer);
  // Both within 1% of the thesis's γ_c = 1.253 rad/s.
  EXPECT_NEAR(e.azimuth_rate_outer, 1.253, 0.01 * 1.253);
  // The inner mass passes near the axis: its azimuth is excluded from γ_c.
  EXPECT_LT(e.r1_min, kAzimuthMinRadius);
  EXPECT_DOUBLE_EQ(e.critical_rate(kAzimuthMinRadius), e.azimuth_rate_outer);
}

TEST(PatternEvocation, PatternOneResonancesFollowEquation41) {
  const ThesisPattern& thesis = thesis_patterns()[0];
  const DspRun run = energy_momentum_run(thesis.start, 0.001, 30.0, 0.01);
  const PatternAnalysis a = analyse_pattern(thesis, run.trace, run.jz0);
  EXPECT_NEAR(a.gamma_c, thesis.gamma_c, 0.005 * thesis.gamma_c);
  EXPECT_GT(a.f, 0.99 * thesis.f_min);
  EXPECT_LT(a.f, 1.01 * thesis.f_max);
  ASSERT_EQ(a.resonances.size(), 4u);
  for (int i = 0; i < 3; ++i) {  // D_2, D_3, D_4 below γ_c: m = 1, n = the symmetry
    const ResonanceResult& r = a.resonances[i];
    EXPECT_EQ(r.m, 1) << "D" << r.thesis.symmetry;
    EXPECT_EQ(r.n, r.thesis.symmetry);
    EXPECT_NEAR(r.f_implied, a.f, 0.01 * a.f) << "D" << r.thesis.symmetry;
    // The found rate is a real optimum of the score, and the thesis's rate is within the search.
    EXPECT_GE(r.found.score.score, r.score_at_thesis.score);
    EXPECT_NEAR(r.found.gamma, r.thesis.gamma, 0.01);
  }
}

TEST(PatternEvocation, ReproduceRecordsEstimatesAndResonancesOfEveryPattern) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mechint_patterns_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const testing::CliResult r = testing::run_mechint("reproduce pattern-evocation --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::read_file(dir / "results.json"));
  ASSERT_EQ(j["patterns"].size(), thesis_patterns().size());
  for (const auto& p : j["patterns"]) {
    // Every estimate table has its F (window × step).
    for (const char* w : {"pattern_window", "window_300s"})
      for (const char* h : {"h_1e-3", "h_2e-3"}) EXPECT_GT(p["estimates"][w][h]["f"].get<double>(), 0.0);
    ASSERT_EQ(p["resonances"].size(), 4u);
    for (const auto& res : p["resonances"]) {
      // The recorded F from eq. 4.1 is the found rate's distance from γ_c over m/n.
      const double implied = std::abs(res["found_gamma"].get<double>() - p["gamma_c"].get<double>()) *
                             res["n"].get<double>() / res["m"].get<double>();
      EXPECT_NEAR(res["f_implied"].get<double>(), implied, 1e-12 * implied);
      EXPECT_GE(res["found_score"].get<double>(), 0.0);
    }
  }
  // Pattern I's D2, D3, D4 below γ_c satisfy eq. 4.1 to 1% (as the analysis test, through the command).
  for (int i = 0; i < 3; ++i)
    EXPECT_LT(std::abs(j["patterns"][0]["resonances"][i]["eq41_relative_deviation"].get<double>()), 0.01);
  EXPECT_TRUE(fs::exists(dir / "report.md"));
  EXPECT_TRUE(fs::exists(dir / "traces.csv"));
  // Each pattern moving in its critical frame, linked from the report (docs/animations.md).
  const std::string report = testing::read_file(dir / "report.md");
  for (const char* pattern : {"pattern-1", "pattern-2", "pattern-3"}) {
    const std::string page = std::string("critical_frame_") + pattern + ".html";
    EXPECT_TRUE(fs::exists(dir / page)) << page;
    EXPECT_NE(report.find("(" + page + ")"), std::string::npos) << page;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mechint::experiments
