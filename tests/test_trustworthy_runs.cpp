// Runs a careless user could start (issue cases, DESIGN §4): each ends with exit 2, 3 or 4 and one
// printable line and leaves no file, or runs and writes a finite result — never exit 0 with a
// non-finite or wrong-length result. Also: the time grid, files that are not regular files, signals,
// and `reproduce` into a directory that is not its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using ::mechint::testing::CliResult;
using ::mechint::testing::count_lines;
using ::mechint::testing::leftover_temporaries;
using ::mechint::testing::read_file;
using ::mechint::testing::run_mechint;

fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / "trust";
  fs::create_directories(dir);
  return dir / name;
}

/// Every number of a CSV body (after the header) parsed; `finite` false if any is not finite.
struct Csv {
  std::string header;
  std::vector<std::vector<double>> rows;
  bool finite = true;
};

Csv parse_csv(const std::string& text) {
  Csv csv;
  std::stringstream ss(text);
  std::getline(ss, csv.header);
  std::string line;
  while (std::getline(ss, line)) {
    std::vector<double> row;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) {
      const double v = std::strtod(cell.c_str(), nullptr);
      csv.finite = csv.finite && std::isfinite(v);
      row.push_back(v);
    }
    csv.rows.push_back(row);
  }
  return csv;
}

bool printable(const std::string& s) {
  for (const char c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

struct Case {
  std::string args;
  std::set<int> allowed;  ///< exit codes this case may end with; 0 means "runs, finite output"
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.args; }

class CarelessInput : public ::testing::TestWithParam<Case> {};

TEST_P(CarelessInput, EndsCleanlyOrWritesAFiniteResult) {
  const Case& c = GetParam();
  const fs::path out = scratch("careless.csv");
  fs::remove(out);
  const CliResult r = run_mechint(c.args + " --out " + out.string());
  EXPECT_TRUE(c.allowed.count(r.status)) << c.args << " exited " << r.status << ": " << r.err;
  EXPECT_EQ(leftover_temporaries(out), 0) << c.args;
  if (r.status == 0) {
    ASSERT_TRUE(fs::exists(out)) << c.args;
    const Csv csv = parse_csv(read_file(out));
    EXPECT_TRUE(csv.finite) << c.args;
    EXPECT_GE(csv.rows.size(), 2u) << c.args << ": a run writes its start and its end";
  } else {
    EXPECT_FALSE(fs::exists(out)) << c.args;
    EXPECT_EQ(count_lines(r.err), 1) << c.args << ": " << r.err;
    EXPECT_TRUE(printable(r.err)) << c.args;
    EXPECT_LT(r.err.size(), 700u) << c.args;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Replay, CarelessInput,
    ::testing::Values(
        // The time grid: nothing to integrate, or a count of steps that cannot be represented.
        Case{"run kepler --h 1e-320 --t-end 1", {2}}, Case{"run kepler --h 1e9 --t-end 1", {2}},
        Case{"run kepler --t-end 1e17", {2}}, Case{"run kepler --h 0.3 --t-end 1", {2}},
        Case{"run kepler --h 0.01 --t-end 1 --output-every 0.015", {2}}, Case{"run kepler --t-end ''", {2}},
        Case{"run kepler --h ''", {2}}, Case{"run kepler --t-end ' 1'", {2}}, Case{"run kepler --t-end inf", {2}},
        Case{"run kepler --t-end 0", {2}}, Case{"run kepler --output-every -1", {2}},
        // Non-finite model values: refused at the start or stopped with exit 3, never written.
        Case{"run kepler --set x=1e160", {2, 3}}, Case{"run harmonic-oscillator --set q=1e200", {2, 3}},
        Case{"run pendulum-chain --set l=1e-300", {2, 3}}, Case{"run pendulum-chain --set g=1e300", {0, 2, 3}},
        Case{"run kepler --set x=1e-320 --set y=0", {2, 3}},
        // A subnormal value is a number.
        Case{"run harmonic-oscillator --set q=1e-320 --t-end 0.1", {0}},
        // Physical nonsense.
        Case{"run rigid-body --set I1=1 --set I2=2 --set I3=100", {2}},
        Case{"run double-spherical-pendulum --set x1=4 --set y1=0", {2}},
        // Values that must not reach the terminal raw.
        // (std::system runs /bin/sh: printf makes the bytes.)
        Case{"run kepler --set \"x=$(printf '1\\n2')\"", {2}}, Case{"run kepler --set \"x=$(printf '\\033[31mred')\"", {2}},
        Case{"run \"$(printf '\\033[2J')\"", {2}}, Case{"run kepler --set \"x=$(head -c 100000 /dev/zero | tr '\\0' 7)x\"", {2}},
        Case{"run kepler --method \"$(printf '\\001')\"", {2}}),
    [](const ::testing::TestParamInfo<Case>& info) { return "case" + std::to_string(info.index); });

/// The last row of a run is at t_end exactly, the rows at multiples of output_every, for a
/// fixed-step VI, the energy–momentum method and an adaptive method.
TEST(TimeGrid, RowsAtTheRequestedTimesAndTheLastAtTEnd) {
  for (const std::string run :
       {"run kepler --h 0.1 --t-end 3 --output-every 0.3", "run double-spherical-pendulum --method energy-momentum --h 0.1 --t-end 3 --output-every 0.3",
        "run kepler --method dopri5 --h 0.1 --t-end 3 --output-every 0.3", "run kepler --method rk4 --h 0.1 --t-end 3 --output-every 0.3"}) {
    const CliResult r = run_mechint(run);
    ASSERT_EQ(r.status, 0) << run << ": " << r.err;
    const Csv csv = parse_csv(r.out);
    ASSERT_EQ(csv.rows.size(), 11u) << run;
    for (std::size_t i = 0; i + 1 < csv.rows.size(); ++i) EXPECT_EQ(csv.rows[i][0], static_cast<double>(3 * i) * 0.1) << run;
    EXPECT_EQ(csv.rows.back()[0], 3.0) << run;
  }
  // output_every at least t_end: the start and the end only.
  const CliResult r = run_mechint("run kepler --h 1e-9 --t-end 1e-6 --output-every 1e30");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_csv(r.out).rows.size(), 2u);
}

TEST(Files, DevicesAreWrittenThroughNotReplaced) {
  using ::mechint::testing::MemoryDevice;
  const fs::path full = scratch("full"), null = scratch("null");
  if (!::mechint::testing::make_device_node(full, MemoryDevice::kFull) ||
      !::mechint::testing::make_device_node(null, MemoryDevice::kNull))
    GTEST_SKIP() << "cannot make device nodes here (needs root, a file system without nodev)";
  const CliResult on_full = run_mechint("run kepler --t-end 1 --out " + full.string());
  EXPECT_EQ(on_full.status, 4) << on_full.err;
  EXPECT_EQ(count_lines(on_full.err), 1) << on_full.err;
  EXPECT_TRUE(::mechint::testing::is_device_node(full, MemoryDevice::kFull));
  const CliResult on_null = run_mechint("run kepler --t-end 1 --out " + null.string());
  EXPECT_EQ(on_null.status, 0) << on_null.err;
  EXPECT_TRUE(::mechint::testing::is_device_node(null, MemoryDevice::kNull));
  EXPECT_EQ(run_mechint("run kepler --t-end 0.1 --out -").out.rfind("t,x,y", 0), 0u);
  fs::remove(full);
  fs::remove(null);
}

TEST(Files, AFifoIsWrittenThrough) {
  const fs::path fifo = scratch("fifo"), copy = scratch("fifo_copy.csv");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const CliResult r = run_mechint("run kepler --t-end 0.1 --out " + fifo.string() + " & cat " + fifo.string() + " > " +
                                  copy.string() + "; wait $!");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(parse_csv(read_file(copy)).rows.size(), 11u);
  fs::remove(fifo);
}

TEST(Files, ASymlinkIsFollowedAndKept) {
  const fs::path target = scratch("target.csv"), link = scratch("link.csv");
  fs::remove(link);
  std::ofstream(target) << "old\n";
  fs::create_symlink(target, link);
  const CliResult r = run_mechint("run kepler --t-end 0.1 --out " + link.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target).rfind("t,x,y", 0), 0u);
  EXPECT_EQ(leftover_temporaries(target), 0);
}

TEST(Files, ADirectoryOrAMissingDirectoryIsBadInput) {
  for (const std::string out : {std::string("."), fs::temp_directory_path().string(), std::string("/no/such/dir/x.csv")}) {
    const CliResult r = run_mechint("run kepler --t-end 0.1 --out " + out);
    EXPECT_EQ(r.status, 2) << out << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.find("filesystem"), std::string::npos) << r.err;
  }
}

/// SIGINT and SIGTERM during a run: exit 128 + signal, one line, neither the output nor a temporary left.
TEST(Signals, InterruptRemovesTheTemporary) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path out = scratch("interrupted.csv"), err = scratch("interrupted.err");
    fs::remove(out);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::freopen(err.c_str(), "w", stderr);
      ::execl(MECHINT_EXECUTABLE, "mechint", "run", "pendulum-chain", "--set", "links=20", "--h", "0.0001", "--t-end",
              "10000", "--out", out.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait until the run has started writing its temporary.
    for (int i = 0; i < 200 && leftover_temporaries(out) == 0; ++i) ::usleep(20000);
    EXPECT_EQ(leftover_temporaries(out), 1);
    ::kill(child, sig);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(leftover_temporaries(out), 0);
    EXPECT_EQ(count_lines(read_file(err)), 1) << read_file(err);
  }
}

/// Peak resident memory (KiB) of one `mechint` run, from wait4's rusage of that child alone.
/// Transparent huge pages are off in the child: khugepaged may fold a heap region into a 2 MiB page
/// at any moment of a run, which would make the peak depend on timing rather than on what the run keeps.
long peak_kib_once(const std::vector<std::string>& args) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);  // inherited across execv
    std::vector<char*> argv{const_cast<char*>("mechint")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(MECHINT_EXECUTABLE, argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(child, &status, 0, &usage);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return usage.ru_maxrss;
}

/// The least of three peaks: a real growth raises every run, a page the kernel maps early in one run does not.
long peak_kib(const std::vector<std::string>& args) {
  return std::min({peak_kib_once(args), peak_kib_once(args), peak_kib_once(args)});
}

/// The memory of a run does not grow with its length (ten times longer: at most 1 MiB more), for
/// an impact system (which once kept every impact), a VI, and an adaptive baseline.
TEST(Memory, FlatInTheLengthOfTheRun) {
  struct Run {
    std::vector<std::string> args;
    std::string t_short, t_long;
  };
  for (const Run& run : {Run{{"run", "point-mass-wall", "--h", "0.1", "--set", "impact=ctec"}, "10000", "100000"},
                         Run{{"run", "double-pendulum", "--set", "wall=1", "--h", "0.05", "--set", "impact=ctec"}, "200", "2000"},
                         Run{{"run", "kepler", "--h", "0.1"}, "10000", "100000"},
                         Run{{"run", "kepler", "--method", "dopri5", "--h", "0.1"}, "2000", "20000"}}) {
    auto with_end = [&](const std::string& t_end) {
      auto args = run.args;
      args.insert(args.end(), {"--t-end", t_end, "--output-every", t_end, "--out", "/dev/null"});
      return args;
    };
    const long short_run = peak_kib(with_end(run.t_short)), long_run = peak_kib(with_end(run.t_long));
    EXPECT_LE(long_run, short_run + 1024) << run.args[1] << ": " << short_run << " KiB at t = " << run.t_short << ", "
                                          << long_run << " KiB at t = " << run.t_long;
  }
}

TEST(Reproduce, RefusesADirectoryThatIsNotItsOwnOutput) {
  const fs::path dir = scratch("foreign");
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "mine\n";
  const CliResult r = run_mechint("reproduce core-convergence --out " + dir.string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(read_file(dir / "notes.txt"), "mine\n");
  EXPECT_FALSE(fs::exists(dir / "results.json"));
}

}  // namespace
