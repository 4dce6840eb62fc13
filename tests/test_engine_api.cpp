// The C++ API of DESIGN §3 (mechint/system.hpp), linked as a program links it (mechint::mechint, the
// shared library): its runs against the command line's CSV bit for bit, a model struct against the
// built-in made of the same struct, stepping against run(), a closed form and the order of a method,
// a constraint to round-off, the sweep's summary against the command line's, and its errors' exit
// codes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_harness.hpp"
#include "mechint/mechint.hpp"
#include "mechint/systems/kepler.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::parse_csv;
using mechint::testing::run_mechint_argv;

struct Oscillator {  // L = ½ v² − ½ q²: q(t) = cos t from (1, 0)
  static constexpr int kDim = 1, kNumConstraints = 0, kNumSymmetries = 0;
  template <class T> T lagrangian(const mechint::Vec<T, 1>& q, const mechint::Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0] - 0.5 * q[0] * q[0];
  }
};

struct Pendulum2D {
  static constexpr int kDim = 2, kNumConstraints = 1, kNumSymmetries = 0;
  template <class T> T lagrangian(const mechint::Vec<T, 2>& q, const mechint::Vec<T, 2>& v) const {
    return 0.5 * mechint::squared_norm(v) - 9.81 * q[1];
  }
  template <class T> mechint::Vec<T, 1> constraints(const mechint::Vec<T, 2>& q) const {
    return mechint::Vec<T, 1>(mechint::squared_norm(q) - 1.0);
  }
};

/// Whether a column can be read from a T (an rvalue Trajectory: no, its span would dangle).
template <class T>
concept HasColumns = requires(T&& table) { std::forward<T>(table)["x"]; };

/// The exit code of what `f` throws (0: nothing).
template <class F>
int exit_code_of(F f) {
  try {
    f();
  } catch (const mechint::Error& e) {
    EXPECT_NE(std::string(e.what()), "");
    return static_cast<int>(e.exit_code());
  }
  return 0;
}

class EngineApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mechint_engine_api_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// A built-in's run is the command line's, bit for bit, column by column.
TEST_F(EngineApi, ARunIsTheCommandLinesRowsBitForBit) {
  for (const std::string method : {"vi-midpoint", "vi-gauss6", "rk78"}) {
    const mechint::Trajectory tr = mechint::System::open("kepler", {{"vy", 1.1}})
                                       .run({.method = method, .h = 0.01, .t_end = 2.0, .output_every = 0.5});
    const auto cli = run_mechint_argv({"run", "kepler", "--method", method, "--set", "vy=1.1", "--h", "0.01",
                                       "--t-end", "2", "--output-every", "0.5"});
    ASSERT_EQ(cli.status, 0) << cli.err;
    const auto expected = parse_csv(cli.out);
    ASSERT_EQ(tr.columns(), expected.names) << method;
    ASSERT_EQ(tr.rows(), expected.rows) << method;
    for (const auto& name : expected.names)
      for (std::size_t i = 0; i < expected.rows; ++i) EXPECT_EQ(tr[name][i], expected[name][i]) << method << " " << name;
  }
}

// A model struct given to from_model is the built-in made of the same struct: the same numbers.
TEST_F(EngineApi, AModelStructRunsAsTheBuiltInMadeOfIt) {
  const mechint::Trajectory builtin =
      mechint::System::open("kepler", {{"x", 0.5}, {"y", 0.0}, {"vx", 0.0}, {"vy", 1.5}}).run({.method = "vi-gauss4", .h = 0.01, .t_end = 5.0});
  const mechint::Trajectory own =
      mechint::System::from_model(mechint::systems::Kepler{}, {{"q1", 0.5}, {"q2", 0.0}, {"q1_dot", 0.0}, {"q2_dot", 1.5}})
          .run({.method = "vi-gauss4", .h = 0.01, .t_end = 5.0});
  ASSERT_EQ(own.columns(), (std::vector<std::string>{"t", "q1", "q2", "energy", "J1"}));
  ASSERT_EQ(own.rows(), builtin.rows());
  for (std::size_t i = 0; i < own.rows(); ++i) {
    EXPECT_EQ(own["q1"][i], builtin["x"][i]);
    EXPECT_EQ(own["q2"][i], builtin["y"][i]);
    EXPECT_EQ(own["energy"][i], builtin["energy"][i]);
    EXPECT_EQ(own["J1"][i], builtin["J"][i]);
  }
}

// The oscillator's q(t) = cos t, reached at the order of the method (vi-gauss4: 4, vi-gauss8: 8).
TEST_F(EngineApi, AModelStructConvergesAtItsMethodsOrderToTheClosedForm) {
  const mechint::System oscillator = mechint::System::from_model(Oscillator{}, {{"q1", 1.0}});
  for (const auto& [method, order, h] : {std::tuple{"vi-gauss4", 4.0, 0.2}, std::tuple{"vi-gauss8", 8.0, 0.5}}) {
    double errors[2];
    for (int halving = 0; halving < 2; ++halving) {
      const mechint::Trajectory tr = oscillator.run({.method = method, .h = h / (1 << halving), .t_end = 10.0});
      errors[halving] = std::abs(tr["q1"].back() - std::cos(10.0));
    }
    const double observed = std::log2(errors[0] / errors[1]);
    EXPECT_NEAR(observed, order, 0.3) << method << ": errors " << errors[0] << ", " << errors[1];
  }
}

// Stepping by one's own loop gives the rows of run(), bit for bit; a restart gives them again.
TEST_F(EngineApi, AnIntegratorStepsToRunsRows) {
  const mechint::System system = mechint::System::open("kepler", {{"x", 0.5}, {"y", 0.0}, {"vx", 0.0}, {"vy", 1.5}});
  const mechint::Trajectory tr = system.run({.method = "vi-midpoint", .h = 0.01, .t_end = 1.0});
  mechint::Integrator it = system.integrator("vi-midpoint", 0.01);
  ASSERT_EQ(it.columns(), tr.columns());
  for (std::size_t i = 0; i < tr.rows(); ++i) {
    EXPECT_EQ(it.row(), tr.row(i)) << "row " << i;
    if (i + 1 < tr.rows()) it.step();
  }
  EXPECT_EQ(it.t(), 1.0);
  EXPECT_EQ(it.steps(), 100);
  EXPECT_EQ(it.energy(), tr["energy"].back());
  it.start({0.5, 0.0}, {0.0, 1.5});
  it.step(100);
  EXPECT_EQ(it.q()[0], tr["x"].back());
  EXPECT_EQ(it.q()[1], tr["y"].back());
  EXPECT_EQ(exit_code_of([&] { it.start({0.5}, {0.0, 1.5}); }), 2);
  EXPECT_EQ(exit_code_of([&] { it.step(0); }), 2);
}

// A constrained model struct: the midpoint rule keeps g(q) = 0 to round-off and the energy bounded.
TEST_F(EngineApi, AConstrainedModelStructKeepsItsConstraint) {
  const mechint::Trajectory tr =
      mechint::System::from_model(Pendulum2D{}, {{"q1", 1.0}}).run({.method = "vi-midpoint", .h = 0.01, .t_end = 20.0});
  double worst = 0.0, drift = 0.0;
  for (std::size_t i = 0; i < tr.rows(); ++i) {
    worst = std::max(worst, std::abs(tr["q1"][i] * tr["q1"][i] + tr["q2"][i] * tr["q2"][i] - 1.0));
    drift = std::max(drift, std::abs(tr["energy"][i] - tr["energy"][0]));
  }
  EXPECT_LE(worst, 1e-12);
  EXPECT_LE(drift, 0.05);  // O(h²), bounded: the pendulum's energy scale is g l = 9.81
  EXPECT_TRUE(tr.has("lambda1"));
}

// A setting is passed exactly: 0.1 set from C++ is the double the command line reads from "0.1".
TEST_F(EngineApi, SettingsAreExactAndChecked) {
  EXPECT_EQ(mechint::Setting(0.1).text(), "0.1");
  EXPECT_EQ(std::stod(mechint::Setting(1.0 / 3.0).text()), 1.0 / 3.0);
  EXPECT_EQ(mechint::Setting(7).text(), "7");
  const mechint::Trajectory tr = mechint::System::open("kepler", {{"x", 0.1}, {"vy", 1.0 / 3.0}}).run({.t_end = 0.01});
  EXPECT_EQ(tr["x"][0], 0.1);
  EXPECT_EQ(exit_code_of([] { mechint::System::open("kepler", {{"no_such_name", 1}}); }), 2);
  // A method's option among the system's settings, as --set takes it: checked when the method is.
  const mechint::System tight = mechint::System::open("kepler", {{"newton_tol", 1e-13}});
  EXPECT_EQ(tight.run({.t_end = 0.1}).rows(), 11u);
  EXPECT_EQ(exit_code_of([&] { tight.run({.method = "rk4", .t_end = 0.1}); }), 2);
  EXPECT_EQ(exit_code_of([&] { tight.run({.t_end = 0.1, .options = {{"newton_tol", 1e-12}}}); }), 2);
  EXPECT_EQ(exit_code_of([] { mechint::System::open("kepler", {{"mu", -1}}); }), 2);
  EXPECT_EQ(exit_code_of([] { mechint::System::open("no-such-system"); }), 2);
  EXPECT_EQ(exit_code_of([] { mechint::System::open("kepler").run({.method = "no-such-method"}); }), 2);
  EXPECT_EQ(exit_code_of([] { mechint::System::open("kepler").run({.h = 0.3, .t_end = 1.0}); }), 2);
  EXPECT_EQ(exit_code_of([] { mechint::System::open("kepler").run({.options = {{"newton_tol", "x"}}}); }), 2);
  const mechint::Trajectory run = mechint::System::open("kepler").run({.t_end = 1.0});
  EXPECT_EQ(exit_code_of([&] { (void)run["no_such_column"]; }), 2);
  static_assert(!HasColumns<mechint::Trajectory> && HasColumns<mechint::Trajectory&>,
                "a column of a temporary trajectory would dangle: it does not compile");
  // A start at the origin is outside Kepler's domain: refused as the command line refuses it.
  EXPECT_EQ(exit_code_of([] { mechint::System::open("kepler", {{"x", 0.0}, {"y", 0.0}}).run(); }), 2);
}

// A model file opens and runs as with `mechint run FILE`, and lists its methods.
TEST_F(EngineApi, AModelFileRunsAsTheCommandLineRunsIt) {
  const std::string file = std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml";
  const mechint::System system = mechint::System::open(file);
  const auto methods = system.methods();
  EXPECT_NE(std::find(methods.begin(), methods.end(), "vi-gauss8"), methods.end());
  const mechint::Trajectory tr = system.run({.method = "vi-gauss8", .t_end = 1.0});
  const auto cli = run_mechint_argv({"run", file, "--method", "vi-gauss8", "--t-end", "1"},
                                    {.environment = {std::string("MECHINT_CACHE_DIR=") + MECHINT_TEST_MODEL_CACHE}});
  ASSERT_EQ(cli.status, 0) << cli.err;
  const auto expected = parse_csv(cli.out);
  ASSERT_EQ(tr.columns(), expected.names);
  for (const auto& name : expected.names) EXPECT_EQ(std::vector<double>(tr[name].begin(), tr[name].end()), expected[name]);
}

// A sweep's summary is the command line's summary.csv, a text column for the status.
TEST_F(EngineApi, ASweepReturnsItsSummary) {
  const fs::path file = dir_ / "k.toml";
  std::ofstream(file) << "system = \"kepler\"\nh = 0.01\nt_end = 1.0\n[vary]\nvy = [1.0, 1.1, 1.2]\n"
                         "[sweep]\nrecord = [\"final\", \"energy_error\"]\n";
  const mechint::Table summary = mechint::sweep(file.string(), 2);
  ASSERT_EQ(summary.rows(), 3u);
  EXPECT_EQ(summary.text("status"), (std::vector<std::string>{"ok", "ok", "ok"}));
  const auto cli = run_mechint_argv({"sweep", file.string(), "--out", (dir_ / "out").string()});
  ASSERT_EQ(cli.status, 0) << cli.err;
  std::ifstream in(dir_ / "out" / "summary.csv");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto header = text.substr(0, text.find('\n'));
  const double vy[] = {1.0, 1.1, 1.2};
  for (std::size_t i = 0; i < 3; ++i) {
    const mechint::Trajectory alone = mechint::System::open("kepler", {{"vy", vy[i]}}).run({.h = 0.01, .t_end = 1.0});
    EXPECT_EQ(summary["x_final"][i], alone["x"].back()) << header;
    EXPECT_EQ(summary["vy"][i], vy[i]);
  }
  // Its numbers are the command line's summary.csv's, read back exactly.
  const auto cells = text.substr(text.find('\n') + 1);
  EXPECT_NE(cells.find(mechint::format_number(summary["x_final"][0], 17)), std::string::npos) << text;
  // A file that does not exist: exit 2, as `mechint sweep` gives.
  EXPECT_EQ(exit_code_of([&] { mechint::sweep((dir_ / "none.toml").string()); }), 2);
}

// mechint::optimize: the command line's files, number for number; the goal met; and the controls,
// replayed by the forced variational integrator of the same system, reproduce the optimal motion
// (the transcription's constraints are that integrator's forced DEL equations).
TEST_F(EngineApi, AnOptimalControlProblemIsSolvedAsTheCommandSolvesIt) {
  const fs::path file = dir_ / "swing.toml";
  std::ofstream(file) << "model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 60\n[parameters]\nc = 0.0\n"
                         "[start]\nth = 0.0\nth_dot = 0.0\n[goal]\nth = 3.141592653589793\nth_dot = 0.0\n";
  const mechint::OptimalControlResult solved = mechint::optimize(file.string(), (dir_ / "api").string());
  EXPECT_EQ(solved.status, "Solve_Succeeded");
  EXPECT_GT(solved.cost, 0.0);
  EXPECT_EQ(solved.method, "vi-midpoint");
  ASSERT_EQ(solved.trajectory.rows(), 61u);
  ASSERT_EQ(solved.controls.rows(), 60u);
  EXPECT_NEAR(solved.trajectory["th"].back(), M_PI, 1e-9);
  // The files the command writes, read back: the same numbers (written with 17 digits).
  const auto cli = run_mechint_argv({"optimize", file.string(), "--out", (dir_ / "cli").string()});
  ASSERT_EQ(cli.status, 0) << cli.err;
  for (const auto& [name, table] : {std::pair{"trajectory.csv", &solved.trajectory}, std::pair{"controls.csv", &solved.controls}}) {
    std::ifstream in(dir_ / "cli" / name);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto expected = parse_csv(text);
    ASSERT_EQ(table->columns(), expected.names) << name;
    ASSERT_EQ(table->rows(), expected.rows) << name;
    for (const auto& column : expected.names)
      for (std::size_t i = 0; i < expected.rows; ++i) EXPECT_EQ((*table)[column][i], expected[column][i]) << name << " " << column;
    EXPECT_TRUE(fs::exists(dir_ / "api" / name)) << name;
  }
  // Replayed: the forced midpoint VI from the start under u_k reaches the nodes q_k.
  mechint::Integrator vi = mechint::System::open("damped-pendulum", {{"c", 0.0}}).integrator("vi-midpoint", 3.0 / 60);
  vi.start({0.0}, {0.0});
  double worst = 0.0;
  for (std::size_t k = 0; k < 60; ++k) {
    vi.set_controls({solved.controls[solved.controls.columns()[1]][k]});
    vi.step();
    worst = std::max(worst, std::abs(vi.q()[0] - solved.trajectory["th"][k + 1]));
  }
  EXPECT_LT(worst, 1e-7);
  // A problem file that does not exist: exit 2, as `mechint optimize` gives.
  EXPECT_EQ(exit_code_of([&] { mechint::optimize((dir_ / "none.toml").string()); }), 2);
}

struct Duffing {  // DESIGN §3's model
  static constexpr int kDim = 1, kNumConstraints = 0, kNumSymmetries = 0;
  double k = 1, c = 0.5;
  template <class T> T lagrangian(const mechint::Vec<T, 1>& q, const mechint::Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0] - 0.5 * k * q[0] * q[0] - 0.25 * c * q[0] * q[0] * q[0] * q[0];
  }
};

// DESIGN §3's lines as written there; the Duffing energy E = ½v² + ½kq² + ¼cq⁴ is kept by vi-gauss8.
TEST_F(EngineApi, TheDesignsExampleRunsAsWritten) {
  mechint::System duffing = mechint::System::from_model(Duffing{}, {{"q1", 1.0}});
  mechint::System cart = mechint::System::open(std::string(MECHINT_SOURCE_DIR) + "/examples/models/cart-pole.toml", {{"m", 0.5}});
  mechint::System acro = mechint::System::open("acrobot", {{"start", "upright"}});
  mechint::Trajectory tr = duffing.run({.method = "vi-gauss8", .h = 0.05, .t_end = 100.0});
  ASSERT_EQ(tr.columns(), (std::vector<std::string>{"t", "q1", "energy"}));
  std::span<const double> x = tr["q1"], e = tr["energy"], t = tr["t"];
  EXPECT_EQ(t.back(), 100.0);
  EXPECT_EQ(e[0], 0.5 + 0.25 * 0.5);
  for (std::size_t i = 0; i < e.size(); ++i) EXPECT_NEAR(e[i], e[0], 1e-9) << "t = " << t[i];
  EXPECT_LE(std::abs(x.back()), 1.0);
  mechint::Integrator it = duffing.integrator("vi-midpoint", 0.01, {{"newton_tol", 1e-12}});
  it.start({1.0}, {0.0});
  it.step();
  EXPECT_EQ(it.t(), 0.01);
  EXPECT_EQ(it.p().size(), 1);
  EXPECT_NEAR(it.energy(), 0.625, 1e-4);
  const mechint::Trajectory cart_run = cart.run({.t_end = 1.0}), acro_run = acro.run({.t_end = 0.1});
  EXPECT_EQ(cart_run["th"].size(), 101u);
  EXPECT_NEAR(acro_run["th1"][0], 3.1, 1e-15);
  EXPECT_EQ(mechint::System::open("kepler").run({.t_end = 0.1}).columns().front(), "t");  // of a temporary: a copy
}

}  // namespace
