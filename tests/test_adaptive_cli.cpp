// adapt=sundman and adapt=energy from the command line (DESIGN §10, docs/adaptive-steps.md): on the
// built-in Kepler problem (its time scale by AD) and on a model file (its generated time scale),
// which must agree with each other; rows at the requested times exactly; every bad value refused with
// exit 2 and one line; a time scale that a step drives non-positive stops the run with exit 3, the
// step and the time named, and no output file left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_harness.hpp"

namespace mechint {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

std::string example(const std::string& name) { return std::string(MECHINT_SOURCE_DIR) + "/examples/models/" + name; }

/// A model file in a fresh directory of the test's own.
std::string write_model(const std::string& name, const std::string& text) {
  return testing::write_harness_file("adaptive_cli", name, text);
}

/// The example's orbit (e = 0.95) on the built-in kepler: the same Lagrangian and s = r^1.5. The
/// example declares a domain, so it runs on the C++ the model file generates (AD kernels); without
/// it, on the generated C kernels: both must agree with the built-in.
class ModelFileTimeScale : public ::testing::TestWithParam<bool> {};

TEST_P(ModelFileTimeScale, AgreesWithTheBuiltIn) {
  const std::string grid = " --method vi-gauss4 --set adapt=sundman --h 0.01 --t-end 6.28 --output-every 0.04";
  std::string path = example("eccentric-orbit.toml");
  if (!GetParam()) {  // the same file without its domain
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find("domain = "), std::string("domain = [\"x^2 + y^2\"]").size(), "");
    path = write_model("eccentric-orbit-kernels.toml", text);
  }
  const CliResult file = run_mechint("run " + path + grid);
  const CliResult builtin = run_mechint("run kepler --set x=0.05 --set y=0 --set vx=0 --set vy=6.244997998398398" + grid);
  ASSERT_EQ(file.status, 0) << file.err;
  ASSERT_EQ(builtin.status, 0) << builtin.err;
  auto a = parse_csv(file.out), b = parse_csv(builtin.out);
  ASSERT_EQ(a["t"].size(), 158u);
  ASSERT_EQ(a["t"].size(), b["t"].size());
  for (std::size_t k = 0; k < a["t"].size(); ++k) {
    EXPECT_EQ(a["t"][k], b["t"][k]);
    EXPECT_NEAR(a["x"][k], b["x"][k], 1e-11);
    EXPECT_NEAR(a["y"][k], b["y"][k], 1e-11);
  }
  // Rows at the requested times exactly, the angular momentum conserved, the energy bounded.
  for (std::size_t k = 0; k + 1 < a["t"].size(); ++k) EXPECT_EQ(a["t"][k], static_cast<double>(4 * k) * 0.01) << k;  // the grid k·h
  EXPECT_EQ(a["t"].back(), 6.28);
  for (double j : a["J1"]) EXPECT_NEAR(j, a["J1"].front(), 1e-12);
  for (double e : a["energy"]) EXPECT_NEAR(e, a["energy"].front(), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(AdaptiveCli, ModelFileTimeScale, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "GeneratedCxx" : "GeneratedKernels"; });

TEST(AdaptiveCli, EnergyStepsReportTheDiscreteEnergyAndFallbacks) {
  const CliResult r = run_mechint("run kepler --set adapt=energy --h 0.01 --t-end 12.56 --output-every 0.04");
  ASSERT_EQ(r.status, 0) << r.err;
  auto t = parse_csv(r.out);
  ASSERT_TRUE(t.has("discrete_energy") && t.has("energy_fallbacks"));
  for (std::size_t k = 1; k < t["t"].size(); ++k) {
    EXPECT_NEAR(t["discrete_energy"][k], t["discrete_energy"][1], 1e-13);
    EXPECT_EQ(t["energy_fallbacks"][k], 0.0);
  }
  for (double j : t["J"]) EXPECT_NEAR(j, t["J"].front(), 1e-12);
}

TEST(AdaptiveCli, BadValuesAreRefusedWithOneLine) {
  struct Case {
    std::string args, says;
  };
  const std::string bad_scale = write_model("velocity-in-scale.toml", R"(name = "bad"
coordinates = ["x"]
lagrangian = "0.5*x_dot^2 - 0.5*x^2"
time_scale = "1 + x_dot^2"
)");
  const std::string forced = write_model("forced-scale.toml", R"(name = "forced"
coordinates = ["x"]
lagrangian = "0.5*x_dot^2 - 0.5*x^2"
forces = ["-0.1*x_dot"]
time_scale = "1 + x^2"
)");
  for (const Case& c : std::vector<Case>{
           {"run kepler --set adapt=later", "adapt"},
           {"run kepler --set adapt=sundman --set land=nowhere", "land"},
           {"run kepler --set time_scale_power=-1 --set adapt=sundman", "time_scale_power"},
           {"run kepler --method vi-gauss4 --set adapt=energy", "vi-midpoint"},
           {"run kepler --set adapt=energy --set compose=yoshida4", "adapt=energy"},
           {"run kepler --set adapt=sundman --set indicators=on", "indicators"},
           {"run harmonic-oscillator --set adapt=sundman", "time scale"},
           {"run damped-pendulum --method vi-gauss4 --set adapt=sundman", "adapt=sundman"},
           {"check " + bad_scale, "velocity-in-scale.toml:4:"},
           {"check " + forced, "forced-scale.toml:5:"},
       }) {
    const CliResult r = run_mechint(c.args.starts_with("run") ? c.args + " --out -" : c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
  }
}

TEST(AdaptiveCli, ATimeScaleDrivenNonPositiveStopsTheRun) {
  // s = x on a fall from x = 1 at speed 100: one fictive step of 0.05 would carry x far below 0.
  const std::string model = write_model("falling.toml", R"(name = "falling"
coordinates = ["x"]
lagrangian = "0.5*x_dot^2 - 9.81*x"
time_scale = "x"
[initial]
x = 1
x_dot = -100
)");
  const fs::path out = fs::path(model).parent_path() / "falling.csv";
  const CliResult r = run_mechint("run " + model + " --method vi-gauss4 --set adapt=sundman --h 0.05 --t-end 1 --out " +
                                  out.string());
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("time scale"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("step 1 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t = "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace mechint
