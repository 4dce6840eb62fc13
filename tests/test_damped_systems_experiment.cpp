// `mechint reproduce damped-systems` (001 §1: forced VIs "get the energy decay correct"): the decay
// rates it records for the damped oscillator are checked against closed forms computed here, apart
// from the experiment — the energy decay rate −2 ln|z|/h of each method's one-step map on
// m q̈ + c q̇ + k q = 0, z its eigenvalue — and the claims of its report against the numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace mechint {
namespace {

/// Rate of E for m = k = 1, damping ratio ζ, step h: midpoint — bilinear transform of
/// s = −ζ + i√(1 − ζ²); trapezoid — central differences, |z|² = (1 − ζh)/(1 + ζh); rk4 — R(hs).
double theory_rate(const std::string& method, double zeta, double h) {
  const std::complex<double> w = h * std::complex<double>(-zeta, std::sqrt(1.0 - zeta * zeta));
  if (method == "vi-trapezoid") return std::log((1.0 + zeta * h) / (1.0 - zeta * h)) / h;
  std::complex<double> z;
  if (method == "vi-midpoint")
    z = (2.0 + w) / (2.0 - w);
  else
    z = 1.0 + w * (1.0 + w * (0.5 + w * (1.0 / 6.0 + w / 24.0)));  // rk4's stability polynomial
  return -2.0 * std::log(std::abs(z)) / h;
}

/// Last line of a CSV as column name → value.
std::map<std::string, double> last_row(const std::string& text) {
  std::istringstream is(text);
  std::string header, line, last;
  std::getline(is, header);
  while (std::getline(is, line))
    if (!line.empty()) last = line;
  std::map<std::string, double> row;
  std::istringstream h(header), v(last);
  std::string name, value;
  while (std::getline(h, name, ',') && std::getline(v, value, ',')) row[name] = std::stod(value);
  return row;
}

TEST(DampedSystemsExperiment, RecordedDecayRatesMatchTheoryAndTheClaim) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mechint_damped_systems_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const testing::CliResult r = testing::run_mechint("reproduce damped-systems --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::read_file(dir / "results.json"));
  ASSERT_EQ(j["rows"].size(), 13u);  // 3 ζ × 3 methods on the oscillator, reference + 3 on the pendulum

  std::map<double, double> rk4_excess;  // ζ → rk4 rate − c/m
  std::map<std::string, double> pendulum_error;
  for (const auto& row : j["rows"]) {
    const auto system = row["system"].get<std::string>(), method = row["method"].get<std::string>();
    const double h = row["h"].get<double>(), rate = row["decay_rate"].get<double>();
    const double exact = row["exact_decay_rate"].get<double>();
    EXPECT_EQ(row["steps_per_period"].get<int>(), 10);
    EXPECT_GT(row["cpu_s"].get<double>(), 0.0);
    EXPECT_NEAR(row["decay_rate_error"].get<double>(), rate / exact - 1.0, 1e-12);
    if (system == "damped-oscillator") {
      const double zeta = row["zeta"].get<double>();
      EXPECT_NEAR(exact, 2.0 * zeta, 1e-15);                                // c/m
      EXPECT_NEAR(h, 2.0 * M_PI / std::sqrt(1.0 - zeta * zeta) / 10.0, 1e-14);  // 10 steps per damped period
      EXPECT_GT(exact * row["t_end"].get<double>(), 9.5);                   // a long run: E falls by > e^-9.5
      // The measured rate is the one-step map's, to the fit's residue of the energy's oscillation.
      EXPECT_NEAR(rate / theory_rate(method, zeta, h) - 1.0, 0.0, 2e-4) << method << " zeta " << zeta;
      const double b2 = std::pow(M_PI / 10.0, 2);  // (ω_d h/2)²
      if (method == "vi-midpoint") {
        EXPECT_NEAR(rate / exact - 1.0, -b2 / (1.0 + b2), 2e-3) << zeta;
      } else if (method == "vi-trapezoid") {
        EXPECT_LT(std::abs(rate / exact - 1.0), 2e-3) << zeta;
      }
      if (method == "rk4") rk4_excess[zeta] = rate - exact;
    } else {
      ASSERT_EQ(system, "damped-pendulum");
      pendulum_error[method] = rate / exact - 1.0;
    }
  }
  // RK4's excess dissipation hardly depends on the damping (within 10% from ζ = 1e-2 to 1e-4), so
  // that it is 6× the physical rate at ζ = 1e-4 and more than half of it at ζ = 1e-3.
  const auto& ex = rk4_excess;
  ASSERT_EQ(ex.size(), 3u);
  EXPECT_NEAR(ex.at(1e-4) / ex.at(1e-2), 1.0, 0.15);
  EXPECT_GT(ex.at(1e-4) / 2e-4, 5.0);
  EXPECT_GT(ex.at(1e-3) / 2e-3, 0.5);
  // Pendulum against the rk78 reference: the VIs' rate errors are those of the linear theory (the
  // amplitude is moderate and falls), RK4's is several times larger.
  ASSERT_EQ(pendulum_error.size(), 4u);
  EXPECT_EQ(pendulum_error["rk78-reference"], 0.0);
  EXPECT_LT(std::abs(pendulum_error["vi-trapezoid"]), 1e-3);
  const double b2 = std::pow(M_PI / 10.0, 2);
  EXPECT_NEAR(pendulum_error["vi-midpoint"], -b2 / (1.0 + b2), 0.01);
  EXPECT_GT(pendulum_error["rk4"], 3.0 * std::abs(pendulum_error["vi-midpoint"]));
  EXPECT_LT(j["damped_pendulum"]["reference_uncertainty"].get<double>(), 1e-6);

  // The series: the exact energy at t_end (a whole number of damped periods) is E0 e^{-c t_end}.
  const auto osc = last_row(testing::read_file(dir / "damped_oscillator_energy.csv"));
  const double t_end = osc.at("t");
  EXPECT_NEAR(osc.at("exact") / (0.5 * std::exp(-2e-3 * t_end)) - 1.0, 0.0, 1e-9);
  for (const auto& row : j["rows"])
    if (row["system"].get<std::string>() == "damped-oscillator" && row["zeta"].get<double>() == 1e-3) {
      EXPECT_NEAR(osc.at(row["method"].get<std::string>()) / osc.at("exact") - 1.0,
                  row["final_energy_error"].get<double>(), 1e-8);
      EXPECT_NEAR(row["final_energy_ratio"].get<double>() - 1.0, row["final_energy_error"].get<double>(), 1e-12);
    }
  const auto pend = last_row(testing::read_file(dir / "damped_pendulum_energy.csv"));
  EXPECT_GT(pend.at("reference"), 0.0);
  EXPECT_TRUE(fs::exists(dir / "report.md"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mechint
