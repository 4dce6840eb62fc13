// Nonholonomic constraints from the command line (DESIGN §10; docs/nonholonomic.md): the built-ins
// chaplygin-sleigh and rolling-disk and a model file's `nonholonomic` field, their columns
// (nonholonomic_residual, mu1…), their runs against closed-form motions derived apart from mechint,
// the generated kernels against the hand-derived ones, and what is refused with exit 2 and one
// located line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "cli_harness.hpp"

namespace mechint {
namespace {

using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

const std::string kSource = MECHINT_SOURCE_DIR;
const std::string kKnifeEdge = kSource + "/examples/models/knife-edge.toml";

class NonholonomicCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1); }
};

TEST_F(NonholonomicCli, SleighColumnsAndDiscreteConstraint) {
  for (const char* method : {"vi-midpoint", "vi-trapezoid"}) {
    const CliResult r = run_mechint(std::string("run chaplygin-sleigh --method ") + method +
                                    " --h 0.01 --t-end 20 --output-every 0.5");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto t = parse_csv(r.out);
    for (const char* column : {"x", "y", "theta", "x_dot", "y_dot", "theta_dot", "energy", "nonholonomic_residual", "mu1"})
      EXPECT_TRUE(t.has(column)) << column;
    EXPECT_FALSE(t.has("mu2"));
    // The discrete constraint to round-off: ~1e-16 |q| / h, allowed 100 times that.
    for (std::size_t i = 0; i < t["t"].size(); ++i) {
      const double size = 1.0 + std::max({std::abs(t["x"][i]), std::abs(t["y"][i]), std::abs(t["theta"][i])});
      EXPECT_LE(t["nonholonomic_residual"][i], 1e-14 * size / 0.01) << method;
    }
    // The velocity columns lie in the distribution: −sin θ ẋ + cos θ ẏ − a θ̇ = 0 (a = 0.5).
    for (std::size_t i = 0; i < t["t"].size(); ++i) {
      const double th = t["theta"][i];
      EXPECT_NEAR(-std::sin(th) * t["x_dot"][i] + std::cos(th) * t["y_dot"][i] - 0.5 * t["theta_dot"][i], 0.0, 1e-12);
    }
    // E = ½ m v² + ½ (I + m a²) ω² = 0.5 + 0.625 at the start; its O(h²) error stays small.
    for (double e : t["energy"]) EXPECT_NEAR(e, 1.125, 1e-4) << method;
    // The turning dies out (ω → 0) and the sleigh runs straight: the known asymptotics of the sleigh.
    EXPECT_LT(std::abs(t["theta_dot"].back()), 0.05 * std::abs(t["theta_dot"].front()));
  }
}

TEST_F(NonholonomicCli, RollingDiskRunsOnItsCircle) {
  // From the origin with θ̇ = 1, φ̇ = 2, R = 1: x = 2 sin t, y = 2 (1 − cos t), θ = t, φ = 2 t.
  const CliResult r = run_mechint("run rolling-disk --h 0.01 --t-end 10 --output-every 0.5");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  ASSERT_TRUE(t.has("mu2"));
  for (std::size_t i = 0; i < t["t"].size(); ++i) {
    const double time = t["t"][i];
    EXPECT_NEAR(t["x"][i], 2.0 * std::sin(time), 1e-3);
    EXPECT_NEAR(t["y"][i], 2.0 * (1.0 - std::cos(time)), 1e-3);
    EXPECT_NEAR(t["theta"][i], time, 1e-12);
    EXPECT_NEAR(t["phi"][i], 2.0 * time, 1e-3);
    EXPECT_NEAR(t["Jtheta"][i], 0.25, 1e-14);  // I θ̇, kept exactly
    EXPECT_NEAR(t["theta_dot"][i], 1.0, 1e-10);
    EXPECT_LE(t["nonholonomic_residual"][i], 1e-14 * (1.0 + 2.0 * time) / 0.01);  // |q| ≤ 2 t + 4
  }
}

/// The knife edge on the incline from rest turning at w = 1 (examples/models/knife-edge.toml): the
/// largest difference of x, y, th from the closed form (Bloch ch. 1) over the rows.
double knife_edge_error(double h) {
  const CliResult r = run_mechint("run " + kKnifeEdge + " --h " + std::to_string(h) + " --t-end 6 --output-every 0.5");
  EXPECT_EQ(r.status, 0) << r.err;
  if (r.status != 0) return INFINITY;
  const auto t = parse_csv(r.out);
  const double k = 9.81 * std::sin(0.3) / 2.0;  // g sin(alpha) / (2 w²)
  double worst = 0.0;
  for (std::size_t i = 0; i < t["t"].size(); ++i) {
    const double s = t["t"][i];
    worst = std::max({worst, std::abs(t["x"][i] - k * std::sin(s) * std::sin(s)),
                      std::abs(t["y"][i] - k * (s - 0.5 * std::sin(2.0 * s))), std::abs(t["th"][i] - s)});
    EXPECT_LE(t["nonholonomic_residual"][i], 1e-14 * (1.0 + std::abs(t["y"][i])) / h);
  }
  return worst;
}

TEST_F(NonholonomicCli, ModelFileFollowsTheClosedFormWithOrderTwo) {
  const double coarse = knife_edge_error(0.02), fine = knife_edge_error(0.01);
  EXPECT_LT(fine, 1e-3);
  EXPECT_NEAR(std::log2(coarse / fine), 2.0, 0.2);
}

TEST_F(NonholonomicCli, GeneratedKernelsAgreeWithTheHandDerivedOnes) {
  const std::string common = " --h 0.01 --t-end 10 --output-every 1";
  const CliResult file = run_mechint("run " + kSource + "/tests/model_files/good/chaplygin-sleigh.toml" + common);
  const CliResult builtin = run_mechint("run chaplygin-sleigh" + common);
  ASSERT_EQ(file.status, 0) << file.err;
  ASSERT_EQ(builtin.status, 0) << builtin.err;
  const auto a = parse_csv(file.out), b = parse_csv(builtin.out);
  for (const char* column : {"x", "y", "theta", "mu1"})
    for (std::size_t i = 0; i < a[column].size(); ++i) EXPECT_NEAR(a[column][i], b[column][i], 1e-10) << column;
}

TEST_F(NonholonomicCli, HolonomicConstraintsAlongsideAgreeWithTheirSubstitution) {
  // A knife edge carrying a slider s held at s = x (a holonomic constraint beside the nonholonomic one)
  // against the same mechanics with s substituted: for the linear constraint the discrete flows are
  // the same (the midpoint of points on s = x lies on it), so the runs agree to Newton's tolerance.
  const std::string good = kSource + "/tests/model_files/good/";
  const double h = 0.01, slider_mass = 2.0;
  for (const std::string method : {"vi-midpoint", "vi-trapezoid"}) {
    const std::string common = " --method " + method + " --h 0.01 --t-end 10";
    const CliResult both = run_mechint("run " + good + "knife-edge-with-slider.toml" + common);
    const CliResult substituted = run_mechint("run " + good + "knife-edge-heavy.toml" + common);
    ASSERT_EQ(both.status, 0) << both.err;
    ASSERT_EQ(substituted.status, 0) << substituted.err;
    auto a = parse_csv(both.out), b = parse_csv(substituted.out);
    ASSERT_TRUE(a.has("constraint_residual") && a.has("lambda1") && a.has("nonholonomic_residual") && a.has("mu1"));
    ASSERT_EQ(a["t"].size(), b["t"].size());
    for (const char* column : {"x", "y", "th", "energy", "mu1"})
      for (std::size_t i = 0; i < a[column].size(); ++i)
        EXPECT_NEAR(a[column][i], b[column][i], 1e-9 * (1.0 + std::abs(b[column][i]))) << method << " " << column << " " << i;
    double largest = 0.0;
    for (std::size_t i = 0; i < a["t"].size(); ++i) {
      EXPECT_LE(std::abs(a["s"][i] - a["x"][i]), 1e-12 * (1.0 + std::abs(a["x"][i]))) << method;
      EXPECT_LE(a["constraint_residual"][i], 1e-12 * (1.0 + std::abs(a["x"][i]))) << method;
      EXPECT_LE(a["nonholonomic_residual"][i], 1e-14 * (1.0 + std::abs(a["y"][i])) / h) << method;
      // The slider is moved by the constraint alone, so its discrete Euler–Lagrange equation (DESIGN §1,
      // p_k + D1 Ld + Dg(q_k)ᵀλ_k = 0 with p_k = M (s_k − s_{k−1})/h from the step before) gives the
      // multiplier of the step that ended at row i exactly: λ = M (s_i − 2 s_{i−1} + s_{i−2}) / h.
      if (i < 2) continue;
      const double lambda = slider_mass * (a["s"][i] - 2.0 * a["s"][i - 1] + a["s"][i - 2]) / h;
      EXPECT_NEAR(a["lambda1"][i], lambda, 1e-8) << method << " row " << i;
      largest = std::max(largest, std::abs(lambda));
    }
    EXPECT_GT(largest, 1e-3) << method;
  }
}

TEST_F(NonholonomicCli, CheckDescribesTheConstraints) {
  const CliResult r = run_mechint("check " + kKnifeEdge);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nonholonomic constraints"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not apply (nonholonomic constraints)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nonholonomic residual 0"), std::string::npos) << r.out;
}

TEST_F(NonholonomicCli, RefusedWithOneLine) {
  const std::string bad = kSource + "/tests/model_files/bad/";
  struct Case {
    std::string args, says;
  } cases[] = {
      {"run chaplygin-sleigh --method rk4 --t-end 1", "rk4"},
      {"run rolling-disk --method vi-gauss4 --t-end 1", "vi-gauss4"},
      {"run rolling-disk --method vi-first-order --t-end 1", "vi-first-order"},
      {"run chaplygin-sleigh --set m=-1 --t-end 1", "m"},
      {"run rolling-disk --set R=0 --t-end 1", "R"},
      {"run chaplygin-sleigh --set omega=nan --t-end 1", "omega"},
      {"run chaplygin-sleigh --h 0 --t-end 1", "h"},
      {"run chaplygin-sleigh --set form=position --t-end 1", "form"},
      {"run " + kKnifeEdge + " --set y_dot=1 --t-end 1", "violates nonholonomic constraint 1"},
      {"check " + bad + "91-nonholonomic-product-of-velocities.toml", "91-nonholonomic-product-of-velocities.toml:6:34: "},
      {"check " + bad + "92-nonholonomic-velocity-free-term.toml", "92-nonholonomic-velocity-free-term.toml:6:34: "},
      {"check " + bad + "97-nonholonomic-with-forces.toml", "not supported"},
  };
  // Compiled first, so that the refusal below is the only line on stderr.
  ASSERT_EQ(run_mechint("run " + kKnifeEdge + " --t-end 0.01").status, 0);
  for (const auto& c : cases) {
    const CliResult r = run_mechint(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_EQ(testing::count_lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
}

TEST_F(NonholonomicCli, AStepNewtonCannotSolveStopsWithExitThree) {
  // h = 10 at a turning rate of 100: the first step's equations have no root Newton reaches.
  const CliResult r = run_mechint("run chaplygin-sleigh --h 10 --set omega=100 --t-end 100");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(testing::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("Newton did not converge at step 1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mechint
