// `mechint optimize PROBLEM.toml [--out DIR]` (DESIGN §7, docs/optimal-control.md): the files it
// writes, the optimal controls re-simulated through `mechint run --controls` (an independent path:
// the run loop and the control schedule, not the optimizer), bad problem files refused with one
// located line (exit 2) and solver failures with exit 3, never leaving output behind.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <stdlib.h>

#include "cli_harness.hpp"

namespace mechint::testing {
namespace {

namespace fs = std::filesystem;

class OptimizeCli : public ::testing::Test {
 protected:
  // Model files compile once per build tree.
  static void SetUpTestSuite() { ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1); }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mechint_optimize_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  fs::path dir_;
};

const std::string kSwingUp = R"(model = "damped-pendulum"
horizon = 3.0
steps = 60
[parameters]
c = 0.0
[start]
th = 0.0
[goal]
th = 3.141592653589793
th_dot = 0.0
)";

TEST_F(OptimizeCli, WritesTheFilesOfDesignSection7) {
  const fs::path problem = write("swing.toml", kSwingUp);
  const fs::path out = dir_ / "out";
  const CliResult r = run_mechint("optimize " + problem.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"trajectory.csv", "controls.csv", "results.json", "report.md", "trajectory.html"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  // The swing-up animated (docs/animations.md), linked from the report.
  EXPECT_NE(read_file(out / "trajectory.html").find("window.mechint"), std::string::npos);
  EXPECT_NE(read_file(out / "report.md").find("(trajectory.html)"), std::string::npos);
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  for (const char* key : {"cost", "converged", "iterations", "constraint_violation", "cpu_s", "h", "steps"})
    EXPECT_TRUE(results.contains(key)) << key;
  EXPECT_TRUE(results["converged"].get<bool>());
  EXPECT_EQ(results["steps"].get<int>(), 60);
  EXPECT_DOUBLE_EQ(results["h"].get<double>(), 3.0 / 60);
  EXPECT_LT(results["constraint_violation"].get<double>(), 1e-8);

  const Table t = parse_csv(read_file(out / "trajectory.csv"));
  ASSERT_EQ(t.names, (std::vector<std::string>{"t", "th", "u1", "energy"}));
  ASSERT_EQ(t.rows, 61u);
  EXPECT_DOUBLE_EQ(t["th"].front(), 0.0);
  EXPECT_NEAR(t["th"].back(), M_PI, 1e-12);
  // Energy at the ends: hanging at rest E = −mgl, upright at rest E = +mgl (m = l = 1, g = 9.81).
  EXPECT_NEAR(t["energy"].front(), -9.81, 1e-9);
  EXPECT_NEAR(t["energy"].back(), 9.81, 1e-7);
  // The cost is Σ h u_k² over the N controls.
  const Table u = parse_csv(read_file(out / "controls.csv"));
  ASSERT_EQ(u.rows, 60u);
  double cost = 0.0;
  for (double uk : u["u1"]) cost += 0.05 * uk * uk;
  EXPECT_NEAR(cost, results["cost"].get<double>(), 1e-9 * cost);
}

TEST_F(OptimizeCli, ControlsReplayedByRunReachTheGoal) {
  const fs::path problem = write("swing.toml", kSwingUp);
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run_mechint("optimize " + problem.string() + " --out " + out.string()).status, 0);
  // The same discrete Lagrangian and step through `mechint run`, driven by controls.csv alone.
  const CliResult r = run_mechint("run damped-pendulum --set c=0 --set th=0 --set dth=0 --h 0.05 --t-end 3 --controls " +
                                  (out / "controls.csv").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const Table run = parse_csv(r.out);
  const Table optimal = parse_csv(read_file(out / "trajectory.csv"));
  ASSERT_EQ(run.rows, optimal.rows);
  // `run` wraps th to (−π, π]: compare on the circle.
  for (std::size_t k = 0; k < run.rows; ++k) {
    const double d = std::remainder(run["th"][k] - optimal["th"][k], 2 * M_PI);
    EXPECT_LT(std::abs(d), 1e-7) << "row " << k;
  }
  EXPECT_NEAR(std::abs(run["th"].back()), M_PI, 1e-7);
  EXPECT_NEAR(run["energy"].back(), 9.81, 1e-6);  // upright at rest
}

TEST_F(OptimizeCli, GalerkinRulesAreReplayedByTheirIntegratorThroughRun) {
  // The program unknowns the polynomial's control points; `run` steps the same discrete Lagrangian by
  // its stage velocities (kernel/galerkin_integrator.hpp): two formulations, one motion.
  for (const char* method : {"vi-gauss4", "vi-lobatto6"}) {
    SCOPED_TRACE(method);
    const fs::path problem = write("swing.toml", std::string("method = \"") + method + "\"\n" + kSwingUp);
    const fs::path out = dir_ / method;
    const CliResult o = run_mechint("optimize " + problem.string() + " --out " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    const auto results = nlohmann::json::parse(read_file(out / "results.json"));
    EXPECT_EQ(results["method"].get<std::string>(), method);
    const Table optimal = parse_csv(read_file(out / "trajectory.csv"));
    EXPECT_NEAR(optimal["th"].back(), M_PI, 1e-12);
    EXPECT_NEAR(optimal["energy"].front(), -9.81, 1e-9);
    EXPECT_NEAR(optimal["energy"].back(), 9.81, 1e-7);
    const CliResult r = run_mechint(std::string("run damped-pendulum --method ") + method +
                                    " --set c=0 --set th=0 --set dth=0 --h 0.05 --t-end 3 --controls " +
                                    (out / "controls.csv").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const Table run = parse_csv(r.out);
    ASSERT_EQ(run.rows, optimal.rows);
    for (std::size_t k = 0; k < run.rows; ++k) {
      const double d = std::remainder(run["th"][k] - optimal["th"][k], 2 * M_PI);
      EXPECT_LT(std::abs(d), 1e-7) << "row " << k;
    }
  }
}

TEST_F(OptimizeCli, WithoutOutPrintsResultsAndWritesNothing) {
  const fs::path problem = write("swing.toml", kSwingUp);
  const CliResult r = run_mechint("optimize " + problem.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto results = nlohmann::json::parse(r.out);
  EXPECT_TRUE(results["converged"].get<bool>());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(OptimizeCli, LimitedMemoryHessianGivesTheSameCost) {
  const fs::path exact = write("exact.toml", kSwingUp);
  const fs::path lbfgs = write("lbfgs.toml", kSwingUp + "[solver]\nhessian = \"limited-memory\"\n");
  const CliResult a = run_mechint("optimize " + exact.string());
  const CliResult b = run_mechint("optimize " + lbfgs.string());
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const double ca = nlohmann::json::parse(a.out)["cost"].get<double>();
  const double cb = nlohmann::json::parse(b.out)["cost"].get<double>();
  EXPECT_NEAR(ca, cb, 1e-6 * ca);
}

TEST_F(OptimizeCli, ModelFileWithControls) {
  // The example model file with a force on the cart (compiled once per build tree).
  const fs::path problem = write("cart.toml", "model = \"" + std::string(MECHINT_SOURCE_DIR) +
                                                  "/examples/models/damped-cart-pole.toml\"\n"
                                                  "horizon = 1.0\nsteps = 40\n[goal]\nx = 0.2\nx_dot = 0.0\n"
                                                  "[bounds]\nu1 = [-1.3, 1.3]\n");
  const fs::path out = dir_ / "out";
  const CliResult r = run_mechint("optimize " + problem.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(read_file(out / "results.json"))["converged"].get<bool>());
  // A model file without [draw]: no page, no word about it, the report links none.
  EXPECT_FALSE(fs::exists(out / "trajectory.html"));
  EXPECT_EQ(read_file(out / "report.md").find("trajectory.html"), std::string::npos);
  // trajectory.csv numbers the controls (DESIGN §6–§7); controls.csv keeps the file's names, which is
  // what `mechint run FILE --controls` reads.
  EXPECT_EQ(parse_csv(read_file(out / "trajectory.csv")).names, (std::vector<std::string>{"t", "x", "th", "u1", "energy"}));
  const Table controls = parse_csv(read_file(out / "controls.csv"));
  EXPECT_EQ(controls.names, (std::vector<std::string>{"t", "u"}));
  // The bound, written with the DESIGN's name u1 for the file's control u, holds and is active (the
  // free optimum peaks at 1.46).
  double peak = 0.0;
  for (double u : controls["u"]) peak = std::max(peak, std::abs(u));
  EXPECT_LE(peak, 1.3 + 1e-8);
  EXPECT_GT(peak, 1.3 - 1e-6);
}

TEST_F(OptimizeCli, EveryFunctionOfTheModelGrammarPassesTheExactHessian) {
  const fs::path problem = write("all.toml", "model = \"" + std::string(MECHINT_SOURCE_DIR) +
                                                 "/tests/model_files/good/controlled-all-functions.toml\"\n"
                                                 "horizon = 1.0\nsteps = 30\n[goal]\nx = 0.3\nx_dot = 0.0\n");
  const CliResult r = run_mechint("optimize " + problem.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto results = nlohmann::json::parse(r.out);
  EXPECT_TRUE(results["converged"].get<bool>());
  EXPECT_LT(results["resimulation_error"].get<double>(), 1e-8);
}

/// A bad problem: exit `code`, one line on stderr containing `what`, no output directory.
void expect_refused(const CliResult& r, int code, const std::string& what, const fs::path& out) {
  EXPECT_EQ(r.status, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(leftover_temporaries(out), 0);
}

TEST_F(OptimizeCli, BadProblemFilesExitTwoWithALocatedLine) {
  const fs::path out = dir_ / "out";
  const auto refuse = [&](const std::string& text, const std::string& what) {
    const fs::path problem = write("bad.toml", text);
    expect_refused(run_mechint("optimize " + problem.string() + " --out " + out.string()), 2, what, out);
  };
  refuse("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 60\n[goal]\ntheta = 1.0\n",
         "bad.toml:5:9: unknown name 'theta' in [goal] (known: th, th_dot)");
  refuse("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 60\nstep = 2\n", "bad.toml:4:1: unknown key 'step'");
  refuse("model = \"damped-pendulum\"\nhorizon = -1.0\nsteps = 60\n", "bad.toml:2:11: horizon must be positive");
  refuse("model = \"damped-pendulum\"\nhorizon = 1.0\nsteps = 60\n[bounds]\nu1 = [2.0, -2.0]\n",
         "bad.toml:5:6: the bounds of u1 are empty");
  refuse("model = \"damped-pendulum\"\nhorizon = 1.0\nsteps = 60\n[bounds]\nth = [-1.0, 1.0]\n[goal]\nth = 3.0\n",
         "the goal th = 3 is outside its bounds");
  refuse("model = \"kepler\"\nhorizon = 1.0\nsteps = 60\n", "the system has no control inputs");
  refuse("model = \"no-such-system\"\nhorizon = 1.0\nsteps = 60\n", "unknown system");
  refuse("model = \"damped-pendulum\"\nhorizon = 1.0\nsteps = 60\nmethod = \"rk4\"\n",
         "bad.toml:4:10: method 'rk4' is not offered for optimal control");
  // vi-first-order is not offered (optimize keeps to the symmetric rules); the refusal lists those it
  // offers, read from the method registry.
  refuse("model = \"damped-pendulum\"\nhorizon = 1.0\nsteps = 60\nmethod = \"vi-first-order\"\n",
         "(known: vi-midpoint, vi-trapezoid, vi-gauss4, vi-gauss6, vi-gauss8, vi-lobatto4, vi-lobatto6)");
  refuse("model = \"damped-pendulum\"\nhorizon = 1.0\nsteps = 60\n[parameters]\nlength = 2.0\n", "length");
  refuse("model = \"damped-pendulum\"\nhorizon = 1.0\n", "missing required key 'steps'");
  refuse("model = \"damped-pendulum\"\nhorizon = [1.0\n", "bad.toml:2:");
}

// A model file without controls, or with holonomic constraints, is refused as the built-ins are, and
// before anything of the model is compiled: a fresh cache stays empty of compiled models.
TEST_F(OptimizeCli, ModelFilesThatCannotBeOptimizedAreRefusedBeforeCompiling) {
  const fs::path out = dir_ / "out", cache = dir_ / "cache";
  mechint::testing::LaunchOptions fresh;
  fresh.environment = {"MECHINT_CACHE_DIR=" + cache.string()};
  const fs::path ring = write("ring.toml", "name = \"ring\"\ncoordinates = [\"x\", \"y\"]\n"
                                           "lagrangian = \"0.5*(x_dot^2 + y_dot^2)\"\nconstraints = [\"x^2 + y^2 - 1\"]\n"
                                           "controls = [\"u\"]\nforces = [\"-u*y\", \"u*x\"]\n[initial]\nx = 1.0\n");
  const std::string examples = std::string(MECHINT_SOURCE_DIR) + "/examples/models/";
  for (const auto& [model, what] :
       {std::pair<std::string, std::string>{examples + "henon-heiles.toml", "the system has no control inputs"},
        {ring.string(), "holonomic constraints is not supported"}}) {
    const fs::path problem = write("p.toml", "model = \"" + model + "\"\nhorizon = 1.0\nsteps = 20\n");
    expect_refused(mechint::testing::run_mechint_argv({"optimize", problem.string(), "--out", out.string()}, fresh), 2,
                   what, out);
    EXPECT_NE(mechint::testing::run_mechint_argv({"optimize", problem.string(), "--out", out.string()}, fresh).err.find(
                  "p.toml:1:"),
              std::string::npos);
  }
  if (fs::exists(cache)) {
    for (const auto& entry : fs::recursive_directory_iterator(cache)) {
      EXPECT_NE(entry.path().extension(), ".so") << entry.path() << ": a model was compiled";
    }
  }
}

TEST_F(OptimizeCli, SolverFailuresExitThree) {
  const fs::path out = dir_ / "out";
  // Unreachable: |u| <= 0.1 cannot lift the pendulum (m g l = 9.81) in one second.
  const fs::path unreachable = write("weak.toml", kSwingUp + "[bounds]\nu1 = [-0.1, 0.1]\n");
  expect_refused(run_mechint("optimize " + unreachable.string() + " --out " + out.string()), 3, "weak.toml", out);
  const fs::path few = write("few.toml", kSwingUp + "[solver]\nmax_iterations = 2\n");
  expect_refused(run_mechint("optimize " + few.string() + " --out " + out.string()), 3,
                 "did not converge (Ipopt: Maximum_Iterations_Exceeded", out);
}

TEST_F(OptimizeCli, OutRefusesADirectoryThatIsNotItsOwn) {
  const fs::path problem = write("swing.toml", kSwingUp);
  const fs::path out = dir_ / "precious";
  fs::create_directories(out);
  std::ofstream(out / "notes.txt") << "keep me\n";
  const CliResult r = run_mechint("optimize " + problem.string() + " --out " + out.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(fs::exists(out / "notes.txt"));
  // A previous output of optimize is replaced.
  const fs::path again = dir_ / "again";
  ASSERT_EQ(run_mechint("optimize " + problem.string() + " --out " + again.string()).status, 0);
  ASSERT_EQ(run_mechint("optimize " + problem.string() + " --out " + again.string()).status, 0);
  EXPECT_EQ(leftover_temporaries(again), 0);
}

TEST_F(OptimizeCli, ControlsThatDoNotReproduceTheMotionAreNoAnswer) {
  // An acrobot swing-up at h = 0.05 with a large torque bound: Ipopt converges, but the forward VI
  // run under the optimal controls misses the optimal motion entirely (it found another root of
  // the discrete equations, or none; at h = 0.01 the same problem is infeasible). This was reported
  // as `converged: true`; it is now exit 3 with the miss, and no files.
  const fs::path problem = write("acrobot.toml", R"(model = "acrobot"
horizon = 3.0
steps = 60
[start]
th1 = 0.0
th2 = 0.0
[goal]
th1 = 3.141592653589793
th2 = 0.0
th1_dot = 0.0
th2_dot = 0.0
[bounds]
u1 = [-40.0, 40.0]
)");
  const fs::path out = dir_ / "out";
  expect_refused(run_mechint("optimize " + problem.string() + " --out " + out.string()), 3,
                 "its controls replayed by the forward VI from the start", out);
  // A tolerance it meets is accepted by the problem file's reader, one out of range is refused.
  const fs::path loose = write("loose.toml", kSwingUp + "[solver]\nresimulation_tolerance = 2.0\n");
  expect_refused(run_mechint("optimize " + loose.string() + " --out " + out.string()), 2, "resimulation_tolerance",
                 out);
}


}  // namespace
}  // namespace mechint::testing

