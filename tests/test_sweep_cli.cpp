// `mechint sweep SWEEP.toml [--out DIR] [--threads N]` (DESIGN §9, docs/sweeps.md), checked against
// what does not go through the sweep: the closed-form Störmer–Verlet solution of the harmonic
// oscillator, separate `mechint run` processes of the same members, the same sweep on another
// number of threads, an uninterrupted run for a killed and resumed one; and bad sweep files refused
// before any member runs, with FILE:LINE:COLUMN and exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.hpp"

extern char** environ;

namespace mechint::testing {
namespace {

namespace fs = std::filesystem;

/// summary.csv as rows of cells (no quoted cells in these sweeps but the status).
std::vector<std::vector<std::string>> cells_of(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

std::size_t column_of(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  throw std::runtime_error("no column " + name);
}

/// summary.csv without its cpu_s column: what must not depend on threads or interruptions.
std::string without_cpu(const std::string& csv) {
  const auto rows = cells_of(csv);
  const std::size_t cpu = column_of(rows.at(0), "cpu_s");
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i)
      if (i != cpu) out += row[i] + (i + 1 < row.size() ? "," : "");
    out += "\n";
  }
  return out;
}

class SweepCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1); }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mechint_sweep_cli_" + std::to_string(::getpid()) + "_" +
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

// HDF5 is a module the program loads from its own prefix when it first writes an .h5 file
// (app/hdf5_module.hpp). A copy of the executable outside its tree has none: a run does not need it,
// and a sweep stops at summary.h5 with exit 4, one line naming where it looked, and no such file.
TEST_F(SweepCli, AProgramWithoutItsHdf5ModuleStopsAtTheFirstH5FileInOneLine) {
  const fs::path copy = dir_ / "prefix" / "bin" / "mechint";
  fs::create_directories(copy.parent_path());
  fs::copy_file(MECHINT_EXECUTABLE, copy);
  LaunchOptions launch;
  launch.executable = copy.string();
  const CliResult run = run_mechint_argv({"run", "harmonic-oscillator", "--t-end", "1", "--out", (dir_ / "run.csv").string()}, launch);
  EXPECT_EQ(run.status, 0) << run.err;
  const fs::path file = write("s.toml", "system = \"harmonic-oscillator\"\nh = 0.1\nt_end = 1.0\n[vary]\nq = [0.5, 1.0]\n");
  const fs::path out = dir_ / "out";
  const CliResult r = run_mechint_argv({"sweep", file.string(), "--out", out.string()}, launch);
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("HDF5 module"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((dir_ / "prefix").string() + "/"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/mechint/libmechint_hdf5.so"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(out / "summary.csv"));
  EXPECT_FALSE(fs::exists(out / "summary.h5"));
  EXPECT_EQ(leftover_temporaries(out / "summary.h5"), 0);
}

// Störmer–Verlet (vi-trapezoid) on q'' = -q from rest: q_n = q0 cos(n θ) with cos θ = 1 - h²/2,
// exactly (the start is the momentum-form step q1 = q0 (1 - h²/2), DESIGN §1).
TEST_F(SweepCli, HarmonicAmplitudesMatchTheClosedFormAndSeparateRuns) {
  const fs::path file = write("amplitudes.toml", R"(system = "harmonic-oscillator"
method = "vi-trapezoid"
h = 0.05
t_end = 3.0
[vary]
q = [0.5, 1.0, 2.0]
[sweep]
record = ["final", "energy_error", "steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string() + " --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "q", "q_final", "energy_error", "steps", "status", "exit"}));
  const double h = 0.05, theta = 2.0 * std::asin(h / 2.0);  // cos θ = 1 - h²/2, well conditioned
  const double amplitudes[] = {0.5, 1.0, 2.0};
  for (int m = 0; m < 3; ++m) {
    const auto& row = rows[m + 1];
    EXPECT_EQ(row[0], std::to_string(m));
    EXPECT_EQ(std::stod(row[1]), amplitudes[m]);
    const double q_final = std::stod(row[2]);
    EXPECT_NEAR(q_final, amplitudes[m] * std::cos(60 * theta), 1e-13 * amplitudes[m]);
    // Second order: within h²·t/24 relative of the exact flow q0 cos(t).
    EXPECT_NEAR(q_final, amplitudes[m] * std::cos(3.0), amplitudes[m] * h * h * 3.0 / 24.0 * 1.1);
    EXPECT_EQ(row[4], "60");
    EXPECT_EQ(row[5], "ok");
    EXPECT_EQ(row[6], "0");

    // The same member as its own `mechint run`, every step written: its last row is the member's
    // final state, and its largest |E - E0| the member's energy_error, to the bit.
    const fs::path csv = dir_ / ("run" + std::to_string(m) + ".csv");
    const CliResult run = run_mechint("run harmonic-oscillator --method vi-trapezoid --h 0.05 --t-end 3 --set q=" +
                                      row[1] + " --out " + csv.string());
    ASSERT_EQ(run.status, 0) << run.err;
    const Table table = parse_csv(read_file(csv));
    EXPECT_EQ(table["q"].back(), q_final);
    double largest = 0.0;
    for (const double e : table["energy"]) largest = std::max(largest, std::abs(e - table["energy"].front()));
    // Störmer–Verlet's energy oscillates at O(h²) (here h²/4 of E): a comparison of real numbers.
    EXPECT_GT(largest, 1e-4 * amplitudes[m] * amplitudes[m]);
    EXPECT_EQ(std::stod(row[3]), largest);
  }
  const auto json = nlohmann::json::parse(read_file(dir_ / "out" / "sweep.json"));
  EXPECT_EQ(json["sweep"]["members"], 3);
  EXPECT_EQ(json["sweep"]["method"], "vi-trapezoid");
  EXPECT_EQ(json["sweep"]["vary"][0]["values"], (nlohmann::json{"0.5", "1", "2"}));
}

// The step itself varied: each member's final state is the closed form at its own step, the error
// against the exact flow falls as h²; a step that does not divide t_end is refused where it is written.
TEST_F(SweepCli, StepSizesAreMembersToo) {
  const fs::path file = write("steps.toml", R"(system = "harmonic-oscillator"
method = "vi-trapezoid"
t_end = 4.0
[vary]
h = [0.1, 0.05, 0.025]
[sweep]
record = ["final", "steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "h", "q_final", "steps", "status", "exit"}));
  double previous_error = 0.0;
  for (int m = 1; m <= 3; ++m) {
    const double h = std::stod(rows[m][1]);
    const long n = std::lround(4.0 / h);
    EXPECT_EQ(rows[m][3], std::to_string(n));
    const double q_final = std::stod(rows[m][2]);
    EXPECT_NEAR(q_final, std::cos(n * 2.0 * std::asin(h / 2.0)), 1e-13);
    const double error = std::abs(q_final - std::cos(4.0));
    if (m > 1) { EXPECT_NEAR(previous_error / error, 4.0, 0.05); }  // second order
    previous_error = error;
  }
  const fs::path bad = write("bad-step.toml", "system = \"harmonic-oscillator\"\nt_end = 1.0\n[vary]\nh = [0.1, 0.3]\n");
  const CliResult refused = run_mechint("sweep " + bad.string() + " --out " + (dir_ / "bad").string());
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find(bad.string() + ":4:11: [vary] h = 0.29999999999999999: t_end = 1 is not a multiple"),
            std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad"));
}

// A constrained system with a symmetry: each member's largest energy, momentum and constraint
// errors are those of its own `mechint run` with a row at every step, to the bit; where a system has
// no constraints the column is empty.
TEST_F(SweepCli, LargestErrorsAreThoseOfTheMembersRuns) {
  const fs::path file = write("spherical.toml", R"(system = "spherical-pendulum"
method = "vi-trapezoid"
h = 0.02
t_end = 2.0
[vary]
vy = [1.0, 1.7320508075688772]
[sweep]
record = ["final", "energy_error", "momentum_error", "constraint_residual", "steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "vy", "x_final", "y_final", "z_final", "energy_error",
                                               "momentum_error", "constraint_residual", "steps", "status", "exit"}));
  for (int m = 1; m <= 2; ++m) {
    const auto& row = rows[m];
    const CliResult run =
        run_mechint("run spherical-pendulum --method vi-trapezoid --h 0.02 --t-end 2 --set vy=" + row[1]);
    ASSERT_EQ(run.status, 0) << run.err;
    const Table t = parse_csv(run.out);
    const auto largest_change = [&](const std::string& column) {
      double largest = 0.0;
      for (const double x : t[column]) largest = std::max(largest, std::abs(x - t[column].front()));
      return largest;
    };
    EXPECT_EQ(std::stod(row[2]), t["x"].back());
    EXPECT_EQ(std::stod(row[3]), t["y"].back());
    EXPECT_EQ(std::stod(row[4]), t["z"].back());
    EXPECT_EQ(std::stod(row[5]), largest_change("energy"));
    EXPECT_EQ(std::stod(row[6]), largest_change("Jz"));
    EXPECT_EQ(std::stod(row[7]), *std::max_element(t["constraint_residual"].begin(), t["constraint_residual"].end()));
    EXPECT_GT(std::stod(row[5]), 0.0);
    EXPECT_EQ(row[8], "100");
  }
  const fs::path free = write("free.toml", "system = \"harmonic-oscillator\"\nt_end = 0.1\n[sweep]\nrecord = "
                                          "[\"momentum_error\", \"constraint_residual\"]\n");
  ASSERT_EQ(run_mechint("sweep " + free.string() + " --out " + (dir_ / "free").string()).status, 0);
  EXPECT_EQ(read_file(dir_ / "free" / "summary.csv"), "member,momentum_error,constraint_residual,status,exit\n0,,,ok,0\n");
  // A nonholonomic model's constraint residual is its discrete velocity constraint's.
  const fs::path sleigh = write("sleigh.toml", "system = \"chaplygin-sleigh\"\nh = 0.01\nt_end = 2.0\n[sweep]\n"
                                               "record = [\"constraint_residual\"]\n");
  ASSERT_EQ(run_mechint("sweep " + sleigh.string() + " --out " + (dir_ / "sleigh").string()).status, 0);
  const auto sleigh_rows = cells_of(read_file(dir_ / "sleigh" / "summary.csv"));
  ASSERT_EQ(sleigh_rows.size(), 2u);
  ASSERT_EQ(sleigh_rows[0][1], "constraint_residual");
  const CliResult sleigh_run = run_mechint("run chaplygin-sleigh --h 0.01 --t-end 2");
  ASSERT_EQ(sleigh_run.status, 0) << sleigh_run.err;
  const Table st = parse_csv(sleigh_run.out);
  ASSERT_FALSE(sleigh_rows[1][1].empty());
  EXPECT_EQ(std::stod(sleigh_rows[1][1]),
            *std::max_element(st["nonholonomic_residual"].begin(), st["nonholonomic_residual"].end()));
}

// Kepler orbits from random and low-discrepancy starts, zipped: the bytes of summary.csv but cpu_s
// do not depend on the number of threads; the momentum error of the midpoint VI is round-off.
TEST_F(SweepCli, SummaryBytesDoNotDependOnThreads) {
  const fs::path file = write("kepler.toml", R"(system = "kepler"
h = 0.01
t_end = 2.0
[vary]
vy = { random = "sobol", low = 0.8, high = 1.2, count = 12 }
x = { random = "uniform", low = 0.9, high = 1.1, count = 12 }
vx = { random = "normal", mean = 0.0, sd = 0.05, count = 12 }
[sweep]
combine = "zip"
seed = 7
record = ["final", "energy_error", "momentum_error", "steps", "cpu_s"]
)");
  const CliResult one = run_mechint("sweep " + file.string() + " --out " + (dir_ / "one").string() + " --threads 1");
  ASSERT_EQ(one.status, 0) << one.err;
  const CliResult two = run_mechint("sweep " + file.string() + " --out " + (dir_ / "two").string() + " --threads 2");
  ASSERT_EQ(two.status, 0) << two.err;
  const std::string a = read_file(dir_ / "one" / "summary.csv"), b = read_file(dir_ / "two" / "summary.csv");
  EXPECT_EQ(without_cpu(a), without_cpu(b));
  const auto rows = cells_of(a);
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "vy", "x", "vx", "x_final", "y_final", "energy_error",
                                               "momentum_error", "steps", "cpu_s", "status", "exit"}));
  for (std::size_t m = 1; m < rows.size(); ++m) {
    EXPECT_EQ(rows[m][10], "ok");
    const double vy = std::stod(rows[m][1]), x = std::stod(rows[m][2]);
    EXPECT_TRUE(vy >= 0.8 && vy < 1.2) << vy;
    EXPECT_TRUE(x >= 0.9 && x < 1.1) << x;
    EXPECT_LT(std::stod(rows[m][7]), 1e-12);  // the discrete Noether momentum: conserved to round-off
  }
  // The Sobol points: the first is the low end, the next the middle (Joe & Kuo, dimension 1).
  EXPECT_EQ(std::stod(rows[1][1]), 0.8);
  EXPECT_NEAR(std::stod(rows[2][1]), 1.0, 1e-15);
}

int lines_in(const fs::path& p) { return count_lines(read_file(p)); }
/// The members' rows in a journal: its lines but the first, which binds it to its sweep.
int rows_in(const fs::path& journal) { return std::max(0, lines_in(journal) - 1); }

/// `mpirun -n <ranks> mechint <args>` (Open MPI; root needs --allow-run-as-root, a machine with
/// fewer cores than ranks --oversubscribe): its exit status and standard error.
CliResult run_mpi(int ranks, const std::string& args, const fs::path& scratch) {
  const std::string command = "mpirun --allow-run-as-root --oversubscribe -n " + std::to_string(ranks) + " " +
                              MECHINT_EXECUTABLE + " " + args + " >/dev/null 2>" + (scratch / "mpi.err").string();
  const int raw = std::system(command.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, "", read_file(scratch / "mpi.err")};
}

// The members shared across two MPI ranks (each on one thread, and each on two): the bytes of
// summary.csv but cpu_s are those of one process; a bad file is refused by rank 0 alone, exit 2.
TEST_F(SweepCli, SummaryBytesDoNotDependOnRanks) {
  const fs::path file = write("kepler.toml", R"(system = "kepler"
h = 0.01
t_end = 2.0
[vary]
vy = { random = "sobol", low = 0.8, high = 1.2, count = 9 }
x = { random = "uniform", low = 0.9, high = 1.1, count = 3 }
[sweep]
combine = "grid"
seed = 3
record = ["final", "energy_error", "momentum_error", "steps", "cpu_s"]
)");
  const CliResult one = run_mechint("sweep " + file.string() + " --out " + (dir_ / "one").string() + " --threads 1");
  ASSERT_EQ(one.status, 0) << one.err;
  const std::string reference = without_cpu(read_file(dir_ / "one" / "summary.csv"));
  ASSERT_EQ(count_lines(reference), 28);
  for (const char* threads : {"1", "2"}) {
    const fs::path out = dir_ / (std::string("ranks-") + threads);
    const CliResult r = run_mpi(2, "sweep " + file.string() + " --out " + out.string() + " --threads " + threads, dir_);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(without_cpu(read_file(out / "summary.csv")), reference) << threads << " threads per rank";
    EXPECT_EQ(rows_in(out / "journal.csv"), 27);
  }
  const fs::path bad = write("bad.toml", "system = \"kepler\"\nh = 0.01\n[vary]\nzz = [1.0]\n");
  const CliResult refused = run_mpi(2, "sweep " + bad.string() + " --out " + (dir_ / "bad").string(), dir_);
  EXPECT_EQ(refused.status, 2) << refused.err;  // mpirun ends with the code of rank 0, which refused
  const std::string mechint_lines = [&] {
    std::istringstream in(refused.err);
    std::string line, kept;
    while (std::getline(in, line))
      if (line.starts_with("mechint:")) kept += line + "\n";
    return kept;
  }();
  EXPECT_EQ(count_lines(mechint_lines), 1) << refused.err;
  EXPECT_NE(mechint_lines.find("zz"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad" / "summary.csv"));
}

/// Starts `mechint <args>` (output discarded) and returns its pid.
pid_t spawn_mechint(const std::string& args) {
  const std::string command = "exec " + std::string(MECHINT_EXECUTABLE) + " " + args + " >/dev/null 2>&1";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
  return pid;
}


// Killed (SIGKILL) once its journal holds a finished member, with a torn line added as a kill in
// the middle of a write would leave it, and run again into the same directory: the same bytes as
// an uninterrupted sweep.
TEST_F(SweepCli, KilledSweepResumesToTheSameBytes) {
  const fs::path file = write("chain.toml", R"(system = "pendulum-chain"
h = 0.01
t_end = 15.0
[set]
links = 3
[vary]
th1 = { from = 0.1, to = 1.5, count = 200 }
[sweep]
record = ["final", "energy_error", "steps", "cpu_s"]
)");
  const fs::path reference = dir_ / "reference", resumed = dir_ / "resumed";
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + reference.string() + " --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;

  const pid_t pid = spawn_mechint("sweep " + file.string() + " --out " + resumed.string() + " --threads 1");
  ASSERT_GT(pid, 0);
  const fs::path journal = resumed / "journal.csv";
  int status = 0;
  bool exited = false;
  while (!(fs::exists(journal) && rows_in(journal) >= 1)) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const int journaled = rows_in(journal);
  ASSERT_FALSE(exited && WIFEXITED(status) && WEXITSTATUS(status) != 0);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it was killed: lengthen it";
  EXPECT_LT(journaled, 200);
  EXPECT_FALSE(fs::exists(resumed / "summary.csv"));
  std::ofstream(journal, std::ios::app) << "199,1.5,0.12";  // a line cut short by the kill

  const CliResult again = run_mechint("sweep " + file.string() + " --out " + resumed.string() + " --threads 2");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(without_cpu(read_file(resumed / "summary.csv")), without_cpu(read_file(reference / "summary.csv")));
  EXPECT_EQ(rows_in(journal), 200);
  // Finished: once more changes nothing.
  const CliResult third = run_mechint("sweep " + file.string() + " --out " + resumed.string());
  ASSERT_EQ(third.status, 0) << third.err;
  EXPECT_EQ(without_cpu(read_file(resumed / "summary.csv")), without_cpu(read_file(reference / "summary.csv")));
}

// trajectories = true: each member's rows at output_every are those of `mechint run` with its values,
// byte for byte, in DIR/trajectories/member-NNNNNN.csv; trajectories.h5 gathers them with the same
// bytes for 1 thread, 2 threads, 2 MPI ranks, and a sweep stopped after some members and run again.
TEST_F(SweepCli, TrajectoriesAreTheMembersRunsInEveryLayoutOfTheWork) {
  const fs::path file = write("kepler.toml", R"(system = "kepler"
h = 0.01
t_end = 3.0
[vary]
vy = { from = 0.9, to = 1.2, count = 4 }
[sweep]
record = ["final", "energy_error", "steps"]
output_every = 0.25
trajectories = true
)");
  const fs::path one = dir_ / "one";
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + one.string() + " --threads 1");
  ASSERT_EQ(r.status, 0) << r.err;
  for (int m = 0; m < 4; ++m) {
    char name[40];
    std::snprintf(name, sizeof name, "member-%06d.csv", m);
    const std::string vy = cells_of(read_file(one / "summary.csv")).at(static_cast<std::size_t>(m + 1)).at(1);
    const CliResult run = run_mechint("run kepler --set vy=" + vy + " --h 0.01 --t-end 3 --output-every 0.25");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(read_file(one / "trajectories" / name), run.out) << name;
    EXPECT_EQ(count_lines(run.out), 14);  // the header, t = 0, 0.25, ..., 3
  }
  const std::string reference = read_file(one / "trajectories.h5");
  ASSERT_GT(reference.size(), 0u);
  EXPECT_GT(read_file(one / "summary.h5").size(), 0u);  // summary.csv in HDF5 (test_sweep_trajectories.cpp)
  const CliResult two = run_mechint("sweep " + file.string() + " --out " + (dir_ / "two").string() + " --threads 2");
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_EQ(read_file(dir_ / "two" / "trajectories.h5"), reference);
  const CliResult ranks = run_mpi(2, "sweep " + file.string() + " --out " + (dir_ / "ranks").string(), dir_);
  ASSERT_EQ(ranks.status, 0) << ranks.err;
  EXPECT_EQ(read_file(dir_ / "ranks" / "trajectories.h5"), reference);
  // What a kill after two members leaves: their rows journaled and their files, nothing else.
  const fs::path resumed = dir_ / "resumed";
  fs::copy(one, resumed, fs::copy_options::recursive);
  {
    std::istringstream journal(read_file(one / "journal.csv"));
    std::string kept, line;
    for (int i = 0; i < 3 && std::getline(journal, line); ++i) kept += line + "\n";  // its first line, 2 rows
    std::ofstream(resumed / "journal.csv", std::ios::trunc) << kept;
  }
  for (const auto& gone : {resumed / "summary.csv", resumed / "trajectories.h5",
                           resumed / "trajectories" / "member-000002.csv", resumed / "trajectories" / "member-000003.csv"})
    fs::remove(gone);
  const CliResult again = run_mechint("sweep " + file.string() + " --out " + resumed.string());
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(read_file(resumed / "trajectories.h5"), reference);
  EXPECT_EQ(read_file(resumed / "trajectories" / "member-000003.csv"), read_file(one / "trajectories" / "member-000003.csv"));
}

// A link planted at a member's trajectory file, or at the trajectories directory, is never written
// through: the sweep stops with exit 4 and one line, and the file the link points to keeps its bytes.
TEST_F(SweepCli, TrajectoriesAreNeverWrittenThroughALink) {
  const fs::path file = write("kepler.toml", "system = \"kepler\"\nh = 0.01\nt_end = 0.5\n[vary]\nvy = [1.0, 1.1]\n"
                                             "[sweep]\noutput_every = 0.1\ntrajectories = true\n");
  const fs::path out = dir_ / "out", victim = write("victim.txt", "mine\n");
  ASSERT_EQ(run_mechint("sweep " + file.string() + " --out " + out.string()).status, 0);
  // As a rerun after a kill before any member finished would find it, with a link planted.
  std::ofstream(out / "journal.csv", std::ios::trunc).flush();
  fs::remove(out / "trajectories" / "member-000001.csv");
  fs::create_symlink(victim, out / "trajectories" / "member-000001.csv");
  const CliResult member = run_mechint("sweep " + file.string() + " --out " + out.string() + " --threads 1");
  EXPECT_EQ(member.status, 4) << member.err;
  EXPECT_EQ(count_lines(member.err), 1) << member.err;
  EXPECT_NE(member.err.find("is a link"), std::string::npos) << member.err;
  EXPECT_EQ(read_file(victim), "mine\n");
  // The directory itself a link to another directory: nothing is written there.
  const fs::path elsewhere = dir_ / "elsewhere";
  fs::create_directories(elsewhere);
  fs::remove_all(out / "trajectories");
  fs::create_directory_symlink(elsewhere, out / "trajectories");
  const CliResult directory = run_mechint("sweep " + file.string() + " --out " + out.string());
  EXPECT_EQ(directory.status, 4) << directory.err;
  EXPECT_EQ(count_lines(directory.err), 1) << directory.err;
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

// trajectories = true needs an interval (refused before any member runs); a member whose h the
// interval is not a multiple of fails alone, with exit 2.
TEST_F(SweepCli, TrajectoriesNeedAnIntervalThatIsAMultipleOfTheStep) {
  const fs::path bad = write("bad.toml", "system = \"kepler\"\nh = 0.01\nt_end = 1.0\n[sweep]\ntrajectories = true\n");
  const CliResult refused = run_mechint("sweep " + bad.string() + " --out " + (dir_ / "bad").string());
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find(bad.string() + ":5:16: "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("output_every"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad"));
  const fs::path steps = write("steps.toml", R"(system = "kepler"
t_end = 1.0
[vary]
h = [0.01, 0.04]
[sweep]
output_every = 0.1
trajectories = true
)");
  const CliResult r = run_mechint("sweep " + steps.string() + " --out " + (dir_ / "steps").string());
  EXPECT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "steps" / "summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const std::size_t exit = column_of(rows[0], "exit"), status = column_of(rows[0], "status");
  EXPECT_EQ(rows[1][exit], "0");
  EXPECT_EQ(rows[2][exit], "2");
  EXPECT_NE(rows[2][status].find("not a multiple"), std::string::npos) << rows[2][status];
  EXPECT_TRUE(fs::exists(dir_ / "steps" / "trajectories" / "member-000000.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "steps" / "trajectories" / "member-000001.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "steps" / "trajectories.h5"));
}

// A link planted at the journal's name (in a directory that holds this sweep) is never followed:
// the file it points to keeps its bytes, and the sweep stops with exit 4 and one line.
TEST_F(SweepCli, JournalIsNeverReadOrTruncatedThroughALink) {
  const fs::path file = write("small.toml", "system = \"kepler\"\nh = 0.01\nt_end = 0.1\n[vary]\nx = [1.0, 1.1]\n");
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run_mechint("sweep " + file.string() + " --out " + out.string()).status, 0);
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "not a journal, no newline at the end";
  fs::remove(out / "journal.csv");
  fs::create_symlink(victim, out / "journal.csv");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + out.string());
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(read_file(victim), "not a journal, no newline at the end");
}

TEST_F(SweepCli, RefusesToResumeADifferentSweep) {
  const std::string sweep = "system = \"harmonic-oscillator\"\nh = 0.1\nt_end = 1.0\n[vary]\nq = [1.0, 2.0]\n";
  const fs::path a = write("a.toml", sweep);
  const fs::path b = write("b.toml", sweep + "k = [1.0, 4.0]\n");
  const std::string out = (dir_ / "out").string();
  ASSERT_EQ(run_mechint("sweep " + a.string() + " --out " + out).status, 0);
  const std::string summary = read_file(dir_ / "out" / "summary.csv");
  const CliResult r = run_mechint("sweep " + b.string() + " --out " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("different sweep"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir_ / "out" / "summary.csv"), summary);
  // A journal damaged other than at its end (a torn last line is expected) is refused, not trusted.
  std::ofstream(dir_ / "out" / "journal.csv", std::ios::app) << "garbage line\n1,2,3\n";
  const CliResult damaged = run_mechint("sweep " + a.string() + " --out " + out);
  EXPECT_EQ(damaged.status, 2);
  EXPECT_NE(damaged.err.find("damaged at line 4"), std::string::npos) << damaged.err;  // after the first line and 2 rows
  // A directory with other files in it is not taken either.
  write("other/notes.txt", "");
  fs::create_directories(dir_ / "other");
  std::ofstream(dir_ / "other" / "notes.txt") << "mine";
  const CliResult other = run_mechint("sweep " + a.string() + " --out " + (dir_ / "other").string());
  EXPECT_EQ(other.status, 2);
  EXPECT_FALSE(fs::exists(dir_ / "other" / "summary.csv"));
}

// Grid order (the last name fastest), derived values, and a member that fails: recorded with its
// message and exit code, the others run, the sweep exits 0 with one line saying how many failed.
TEST_F(SweepCli, GridDerivedAndFailingMembers) {
  const fs::path file = write("grid.toml", R"(system = "harmonic-oscillator"
h = 0.1
t_end = 1.0
[vary]
k = [1.0, 4.0]
q = [1.0, -1.0]
[derived]
v = "sqrt(q) * k"
[sweep]
record = ["final", "steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("2 of 4 members failed"), std::string::npos) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "k", "q", "v", "q_final", "steps", "status", "exit"}));
  const std::vector<std::pair<std::string, std::string>> kq = {{"1", "1"}, {"1", "-1"}, {"4", "1"}, {"4", "-1"}};
  for (int m = 0; m < 4; ++m) {
    const auto& row = rows[m + 1];
    EXPECT_EQ(row[1], kq[m].first);
    EXPECT_EQ(row[2], kq[m].second);
    if (kq[m].second == "1") {
      EXPECT_EQ(std::stod(row[3]), std::stod(kq[m].first));  // sqrt(1) * k
      EXPECT_EQ(row[6], "ok");
      EXPECT_EQ(row[7], "0");
      // The member equals its own run, to the bit.
      const CliResult run = run_mechint("run harmonic-oscillator --h 0.1 --t-end 1 --set k=" + row[1] +
                                        " --set q=1 --set v=" + row[3]);
      ASSERT_EQ(run.status, 0) << run.err;
      EXPECT_EQ(parse_csv(run.out)["q"].back(), std::stod(row[4]));
      EXPECT_EQ(row[5], "10");
    } else {
      EXPECT_EQ(row[3], "");
      EXPECT_EQ(row[4], "");
      EXPECT_NE(row[6].find("[derived] v is not a finite number (nan)"), std::string::npos) << row[6];
      EXPECT_EQ(row[7], "2");
    }
  }
}

// The worked example of docs/sweeps.md: a model file, a grid on the Hénon–Heiles section x = 0 at
// E = 1/8 with x_dot derived. The members that fail are exactly those off the energy surface (the
// radicand, computed here, negative); the others start at E = 1/8 (their own `mechint run` says so)
// and end where that run ends.
TEST_F(SweepCli, HenonHeilesExampleDerivesTheEnergySurface) {
  const std::string example = std::string(MECHINT_SOURCE_DIR) + "/examples/sweeps/henon-heiles-grid.toml";
  const CliResult r = run_mechint("sweep " + example + " --out " + (dir_ / "out").string() + " --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 442u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "y", "y_dot", "x_dot", "x_final", "y_final", "energy_error",
                                               "steps", "cpu_s", "status", "exit"}));
  int failed = 0;
  std::size_t checked = 0;
  for (std::size_t m = 1; m < rows.size(); ++m) {
    const auto& row = rows[m];
    const double y = std::stod(row[1]), y_dot = std::stod(row[2]);
    const double radicand = 2 * 0.125 - y_dot * y_dot - y * y + 2 * y * y * y / 3;
    if (radicand < 0) {
      ++failed;
      EXPECT_EQ(row[10], "2") << "member " << row[0];
      EXPECT_EQ(row[3], "");
      continue;
    }
    ASSERT_EQ(row[9], "ok") << "member " << row[0];
    EXPECT_NEAR(std::stod(row[3]), std::sqrt(radicand), 1e-15);
    EXPECT_EQ(row[7], "10000");
    EXPECT_LT(std::stod(row[6]), 1e-4);  // the midpoint VI's energy error at h = 0.01
    if (checked == 0 || m == 221) {  // the first member that runs, and the grid's centre
      ++checked;
      const CliResult run = run_mechint(std::string("run ") + MECHINT_SOURCE_DIR +
                                        "/examples/models/henon-heiles.toml --h 0.01 --t-end 100 --output-every 100 "
                                        "--set x=0 --set y=" + row[1] + " --set y_dot=" + row[2] + " --set x_dot=" + row[3]);
      ASSERT_EQ(run.status, 0) << run.err;
      const Table table = parse_csv(run.out);
      EXPECT_NEAR(table["energy"].front(), 0.125, 1e-15);
      EXPECT_EQ(table["x"].back(), std::stod(row[4]));
      EXPECT_EQ(table["y"].back(), std::stod(row[5]));
    }
  }
  EXPECT_EQ(checked, 2u);
  EXPECT_GT(failed, 0);
  EXPECT_NE(r.err.find(std::to_string(failed) + " of 441 members failed"), std::string::npos) << r.err;
}

// A member whose run fails numerically (exit 3) is recorded as well.
TEST_F(SweepCli, NumericalFailureOfAMemberIsRecorded) {
  const fs::path file = write("kepler.toml", R"(system = "kepler"
h = 0.01
t_end = 1.0
[vary]
vy = [1.0, 0.0]
[sweep]
record = ["steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "vy", "steps", "status", "exit"}));
  EXPECT_EQ(rows[1][3], "ok");
  EXPECT_EQ(rows[1][4], "0");
  EXPECT_EQ(rows[1][2], "100");
  // vy = 0: the body falls into the centre and Newton fails on the way; the member's status and
  // exit are those of the same `mechint run`, its steps those before the failing one.
  const CliResult run = run_mechint("run kepler --h 0.01 --t-end 1 --set vy=0 --out " + (dir_ / "x.csv").string());
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(rows[2][4], "3");
  EXPECT_EQ("mechint: error: " + rows[2][3] + "\n", run.err);
  // The error names the time the failing step ends at (h = 0.01).
  const auto at = run.err.find("t = ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(std::stol(rows[2][2]), std::lround(std::stod(run.err.substr(at + 4)) / 0.01) - 1);
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

// A value the system takes but cannot start from is that member's failure (exit 2, the message of
// `mechint run`), not a bad sweep file.
TEST_F(SweepCli, AStartTheSystemRefusesFailsThatMemberOnly) {
  const fs::path file = write("dsp.toml", R"(system = "double-spherical-pendulum"
h = 0.01
t_end = 0.1
[vary]
l1 = [4.0, 2.0]
[sweep]
record = ["steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][3], "ok");
  const CliResult run = run_mechint("run double-spherical-pendulum --h 0.01 --t-end 0.1 --set l1=2");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(rows[2][4], "2");
  EXPECT_EQ("mechint: error: " + rows[2][3] + "\n", run.err);
  EXPECT_EQ(rows[2][2], "0");
}

struct BadFile {
  std::string name, text;
  int line, column;
  std::string says;
};

TEST_F(SweepCli, BadFilesAreRefusedBeforeAnyMemberRuns) {
  const std::string head = "system = \"harmonic-oscillator\"\nh = 0.1\nt_end = 1.0\n";
  const std::vector<BadFile> cases = {
      {"unknown-key", head + "colour = 1\n", 4, 1, "unknown key 'colour'"},
      {"unknown-name", head + "[vary]\nq = [1.0]\nzz = [1.0, 2.0]\n", 6, 7, "unknown name 'zz'"},
      {"out-of-range", head + "[vary]\nm = [1.0, -1.0]\n", 5, 11, "m"},
      {"zip-lengths", head + "[vary]\nq = [1.0, 2.0]\nv = [1.0]\n[sweep]\ncombine = \"zip\"\n", 6, 1, "zip"},
      {"count-zero", head + "[vary]\nq = { from = 0.0, to = 1.0, count = 0 }\n", 5, 37, "count"},
      {"no-seed", head + "[vary]\nq = { random = \"uniform\", low = 0.0, high = 1.0, count = 3 }\n", 5, 16, "seed"},
      {"bad-derived", head + "[derived]\nv = \"2*qq\"\n", 5, 5, "qq"},
      {"derived-not-a-name", head + "[derived]\nw = \"2*q\"\n", 5, 1, "'w'"},
      {"record", head + "[sweep]\nrecord = [\"final\", \"energy\"]\n", 5, 20, "energy"},
      {"syntax", head + "[vary\n", 4, 6, "TOML"},
      {"set-and-vary", head + "[set]\nq = 2.0\n[vary]\nq = [1.0]\n", 7, 1, "once"},
      {"unknown-system", "system = \"no-such-system\"\n", 1, 10, "no-such-system"},
      {"method", head + "method = \"vi-nothing\"\n", 4, 10, "vi-nothing"},
      {"t_end", "system = \"harmonic-oscillator\"\nh = 0.3\nt_end = 1.0\n", 2, 5, "multiple"},
  };
  for (const auto& c : cases) {
    const fs::path file = write(c.name + ".toml", c.text);
    const fs::path out = dir_ / ("out-" + c.name);
    const CliResult r = run_mechint("sweep " + file.string() + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << c.name << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << c.name << ": " << r.err;
    const std::string where = file.string() + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
    EXPECT_NE(r.err.find(where), std::string::npos) << c.name << ": " << r.err << " (expected " << where << ")";
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.name;
  }
}

// record = ["megno", "lyapunov"] sets indicators=on for every member and reads the last row's
// columns of that name; the option comes with the tangent map (issue 27), on the methods that run
// on a model file's kernels.
TEST_F(SweepCli, ChaosIndicatorsAreTheLastRowsColumns) {
  const std::string model = std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml";
  const fs::path file = write("megno.toml", "system = \"" + model + R"("
h = 0.01
t_end = 20.0
[vary]
y = [0.1, 0.3]
[sweep]
record = ["megno", "lyapunov", "steps"]
)");
  const CliResult r = run_mechint("sweep " + file.string() + " --out " + (dir_ / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = cells_of(read_file(dir_ / "out" / "summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"member", "y", "megno", "lyapunov", "steps", "status", "exit"}));
  for (int m = 1; m <= 2; ++m) {
    ASSERT_EQ(rows[m][5], "ok") << rows[m][5];
    const CliResult run =
        run_mechint("run " + model + " --h 0.01 --t-end 20 --output-every 20 --set indicators=on --set y=" + rows[m][1]);
    ASSERT_EQ(run.status, 0) << run.err;
    const Table table = parse_csv(run.out);
    EXPECT_EQ(std::stod(rows[m][2]), table["megno"].back());
    EXPECT_EQ(std::stod(rows[m][3]), table["lyapunov"].back());
  }
}

}  // namespace
}  // namespace mechint::testing
