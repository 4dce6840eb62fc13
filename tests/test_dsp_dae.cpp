// 003 §5: over 30 s from pattern I the energy–momentum integrator keeps energy and J_z to round-off
// while the DAE baseline (IDA) drifts by an amount that shrinks with its tolerance; the thesis's
// measure e of r1 against the run at h = 0.001 falls with h; `mechint reproduce dsp-dae` writes it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "experiments/dsp_runs.hpp"

namespace mechint::experiments {
namespace {

TEST(DspDae, EnergyMomentumConservesWhileTheDaeDrifts) {
  const DspRun em = energy_momentum_run("pattern-1", 0.001, 30.0, 0.01);
  const double em_e = max_relative_drift(em.energy, em.energy0), em_j = max_relative_drift(em.jz, em.jz0);
  EXPECT_LT(em_e, 1e-10);
  EXPECT_LT(em_j, 1e-10);
  const DspRun loose = dae_run("pattern-1", {1e-8, 1e-10}, 30.0, 0.01);
  const DspRun tight = dae_run("pattern-1", {1e-10, 1e-12}, 30.0, 0.01);
  const double loose_e = max_relative_drift(loose.energy, loose.energy0);
  const double tight_e = max_relative_drift(tight.energy, tight.energy0);
  const double loose_j = max_relative_drift(loose.jz, loose.jz0), tight_j = max_relative_drift(tight.jz, tight.jz0);
  EXPECT_GT(loose_e, 100.0 * em_e);
  EXPECT_GT(loose_j, 100.0 * em_j);
  EXPECT_LT(tight_e, loose_e);
  EXPECT_LT(tight_j, loose_j);
  // Both solve the same equations: r1 agrees to the energy–momentum run's O(h²) error.
  EXPECT_LT(measure_e(r1_every(tight, 0.1, 0.01), r1_every(em, 0.1, 0.01)), 1e-5);
}

TEST(DspDae, MeasureEFallsWithTheStep) {
  const std::vector<double> standard = r1_every(energy_momentum_run("pattern-1", 0.001, 30.0, 0.01), 0.1, 0.01);
  double previous = 1e300;
  for (double h : {0.1, 0.05, 0.01}) {
    const double e = measure_e(r1_every(energy_momentum_run("pattern-1", h, 30.0, h), 0.1, h), standard);
    EXPECT_LT(e, previous) << "h = " << h;
    previous = e;
  }
  EXPECT_LT(previous, 1e-3);
}

TEST(DspDae, ReproduceWritesTheTableAndReport) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mechint_dsp_dae_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const testing::CliResult r = testing::run_mechint("reproduce dsp-dae --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::read_file(dir / "results.json"));
  ASSERT_EQ(j["rows"].size(), 7u);
  for (const auto& row : j["rows"]) {
    EXPECT_GT(row["cpu_s"].get<double>(), 0.0);
    if (row["method"] == "energy-momentum") {
      EXPECT_LT(row["energy_drift"].get<double>(), 1e-10);
      EXPECT_LT(row["momentum_drift"].get<double>(), 1e-10);
    }
  }
  EXPECT_TRUE(fs::exists(dir / "report.md"));
  EXPECT_TRUE(fs::exists(dir / "series.csv"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mechint::experiments
