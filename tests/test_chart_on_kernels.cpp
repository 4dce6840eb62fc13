// A problem in a chart (000 §4.2) runs on the kernels of its model in chart coordinates
// (app/builtin_kernels.hpp), whose variational rules are the restricted discrete Lagrangians
// Ld(ψ(θ0), ψ(θ1)) of 000 eq. 4.9, with the chart's periodic coordinates wrapped after each step
// (discrete/chart.hpp). Held to the constrained Cartesian formulation of the same system, whose
// motion the restricted rules reproduce exactly (000 Theorem 4.3.1: ψ(θ_k) = q_k up to Newton's
// tolerance), and to the exact conservation of Jz over a long run.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "app/builtin_kernels.hpp"
#include "app/run_system.hpp"
#include "app/system_entry.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

struct Rows : app::RowWriter {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  void header(const std::vector<std::string>& c) override { columns = c; }
  void row(const std::vector<double>& r) override { rows.push_back(r); }
  int column(const std::string& name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return static_cast<int>(i);
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};

Rows run(const std::string& method, std::map<std::string, std::string> settings, const OutputSchedule& schedule) {
  Rows out;
  app::run_system(app::find_system("spherical-pendulum"), method, settings, schedule, out);
  return out;
}

TEST(ChartOnKernels, EveryRuleMovesAsTheConstrainedCartesianRun) {
  const OutputSchedule schedule{0.01, 5.0, 0.1};
  const double l = 1.0;
  // Momentum form: both formulations start from the same p0 = ∂L/∂q̇. (In position form each starts
  // from its own q_{-1} = q0 − h q̇0, on the sphere in angles and off it in Cartesian coordinates: two
  // starts, not one motion.)
  const char* form = "momentum";
  for (const char* method : {"vi-midpoint", "vi-trapezoid", "vi-first-order"}) {
      const Rows angles = run(method, {{"coordinates", "angles"}, {"form", form}}, schedule);
      const Rows cartesian = run(method, {{"coordinates", "cartesian"}, {"form", form}}, schedule);
      ASSERT_EQ(angles.columns, (std::vector<std::string>{"t", "theta", "phi", "energy", "Jz"}));
      ASSERT_EQ(angles.rows.size(), 51u);
      ASSERT_EQ(cartesian.rows.size(), 51u);
      const int x = cartesian.column("x"), e = cartesian.column("energy"), jz = cartesian.column("Jz");
      double worst_position = 0.0, worst_energy = 0.0, worst_jz = 0.0, largest_phi = 0.0;
      for (std::size_t r = 0; r < angles.rows.size(); ++r) {
        const auto& a = angles.rows[r];
        const auto& c = cartesian.rows[r];
        ASSERT_EQ(a[0], c[0]);
        const double theta = a[1], phi = a[2];
        const double embedded[3] = {l * std::sin(theta) * std::cos(phi), l * std::sin(theta) * std::sin(phi),
                                    -l * std::cos(theta)};
        for (int i = 0; i < 3; ++i) worst_position = std::max(worst_position, std::abs(embedded[i] - c[x + i]));
        worst_energy = std::max(worst_energy, std::abs(a[3] - c[e]) / (1.0 + std::abs(c[e])));
        worst_jz = std::max(worst_jz, std::abs(a[4] - c[jz]) / (1.0 + std::abs(c[jz])));
        largest_phi = std::max(largest_phi, std::abs(phi));
      }
      // Two Newton solutions of one motion, each to 1e-12·(1 + |q|) per step, over 500 steps.
      EXPECT_LE(worst_position, 1e-9) << method << " " << form;
      EXPECT_LE(worst_energy, 1e-9) << method << " " << form;
      EXPECT_LE(worst_jz, 1e-9) << method << " " << form;
      // φ turns by about 2 rad/s: over 5 s it would pass π several times if it were not wrapped.
      EXPECT_LE(largest_phi, M_PI + 1e-12) << method << " " << form;
    }
}

TEST(ChartOnKernels, JzStaysAtRoundOffOverALongRun) {
  // 10^5 steps: φ grows to about 3.5·10^3 rad unwrapped, and sin, cos of so large an angle lose the
  // digits that keep the discrete Jz exact: 5.1e-10 relative drift measured without the wrap,
  // 4.0e-11 with it (Newton's tolerance accumulated over the steps).
  const Rows angles = run("vi-midpoint", {{"coordinates", "angles"}}, OutputSchedule{0.01, 1000.0, 10.0});
  ASSERT_EQ(angles.rows.size(), 101u);
  const int jz = angles.column("Jz"), phi = angles.column("phi");
  const double jz0 = angles.rows.front()[jz];
  ASSERT_GT(std::abs(jz0), 0.1);
  double drift = 0.0;
  for (const auto& row : angles.rows) {
    drift = std::max(drift, std::abs(row[jz] - jz0) / std::abs(jz0));
    EXPECT_LE(std::abs(row[phi]), M_PI + 1e-12);
  }
  EXPECT_LE(drift, 1e-10);
}

TEST(ChartOnKernels, TheRestrictedRulesAreTheModelsOwnNotQuadraturesOfTheChartLagrangian) {
  // The explicit Störmer–Verlet steps of the trapezoid rule are a quadrature of L in θ: a chart's
  // own trapezoid rule must not be replaced by them (src/methods/variational_rules.cpp).
  const systems::SphericalPendulum model{1.0, 1.0, 9.81};
  app::Problem<systems::SphericalPendulum, systems::SphericalAnglesChart> charted(model,
                                                                                 systems::SphericalAnglesChart{1.0});
  charted.q0 = Eigen::Vector2d(1.0, 0.3);
  charted.initial_data = Eigen::Vector2d(0.0, 2.0);
  charted.labels = {{"theta", "phi"}, {"Jz"}};
  const app::KernelProblem k = app::kernel_problem_of(charted);
  for (int rule : {MECHINT_RULE_MIDPOINT, MECHINT_RULE_TRAPEZOID, MECHINT_RULE_FIRST_ORDER})
    EXPECT_TRUE(k.model->supplies_own_discrete_rule(rule)) << rule;
  EXPECT_TRUE(static_cast<bool>(k.wrap_periodic));

  app::Problem<systems::SphericalPendulum> cartesian(model);
  cartesian.q0 = Eigen::Vector3d(std::sin(1.0), 0.0, -std::cos(1.0));
  cartesian.initial_data = Eigen::Vector3d(0.0, 1.0, 0.0);
  cartesian.labels = {{"x", "y", "z"}, {"Jz"}};
  const app::KernelProblem c = app::kernel_problem_of(cartesian);
  for (int rule : {MECHINT_RULE_MIDPOINT, MECHINT_RULE_TRAPEZOID, MECHINT_RULE_FIRST_ORDER})
    EXPECT_FALSE(c.model->supplies_own_discrete_rule(rule)) << rule;
  EXPECT_FALSE(static_cast<bool>(c.wrap_periodic));
}

}  // namespace
}  // namespace mechint
