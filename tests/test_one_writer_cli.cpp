// The one writer (app/file_writer.hpp, DESIGN §4) on every surface that writes a file a user named:
// `run --out` and `--animate`, `view --out`, `optimize --out DIR`; and the one-line rule when a model
// had to be compiled before the failure. Devices are nodes of this test's own (cli_harness.hpp),
// never the machine's /dev.
#include "cli_harness.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using mechint::testing::CliResult;
using mechint::testing::count_lines;
using mechint::testing::is_device_node;
using mechint::testing::LaunchOptions;
using mechint::testing::leftover_temporaries;
using mechint::testing::make_device_node;
using mechint::testing::MemoryDevice;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

const std::string kSource = MECHINT_SOURCE_DIR;

/// A fresh directory of this test process's own.
fs::path scratch(const std::string& name) {
  const fs::path dir = mechint::testing::harness_directory() / name;  // removed when the process ends
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

void expect_one_line_error(const CliResult& r, int code, const std::string& mentions) {
  EXPECT_EQ(r.status, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("mechint: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << "should mention '" << mentions << "': " << r.err;
}

/// A short run of the double pendulum as CSV in `dir`, for `view`.
fs::path run_csv(const fs::path& dir) {
  const fs::path csv = dir / "run.csv";
  const CliResult r = run_mechint_argv({"run", "double-pendulum", "--t-end", "0.5", "--out", csv.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  return csv;
}

/// Names in `dir` but those listed: what a command left behind.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(OneWriter, PagesToDevicesAreWrittenThroughNeverReplaced) {
  const fs::path dir = scratch("devices");
  const fs::path full = dir / "full", null = dir / "null";
  if (!make_device_node(full, MemoryDevice::kFull) || !make_device_node(null, MemoryDevice::kNull))
    GTEST_SKIP() << "cannot make device nodes here (needs root, a file system without nodev)";
  const fs::path csv = run_csv(dir);
  // view: a full device is exit 4 with one line; the node stays a device; no temporary beside it.
  expect_one_line_error(run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", full.string()}), 4,
                        "No space left on device");
  EXPECT_TRUE(is_device_node(full, MemoryDevice::kFull));
  EXPECT_EQ(leftover_temporaries(full), 0);
  const CliResult to_null = run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", null.string()});
  EXPECT_EQ(to_null.status, 0) << to_null.err;
  EXPECT_TRUE(is_device_node(null, MemoryDevice::kNull));
  // run --animate: the same, and a page that cannot be written leaves no CSV either.
  const fs::path kept = dir / "kept.csv";
  expect_one_line_error(run_mechint_argv({"run", "double-pendulum", "--t-end", "0.2", "--out", kept.string(), "--animate",
                                          full.string()}),
                        4, "--animate");
  EXPECT_FALSE(fs::exists(kept));
  EXPECT_TRUE(is_device_node(full, MemoryDevice::kFull));
  const CliResult animated =
      run_mechint_argv({"run", "double-pendulum", "--t-end", "0.2", "--out", kept.string(), "--animate", null.string()});
  EXPECT_EQ(animated.status, 0) << animated.err;
  EXPECT_TRUE(is_device_node(null, MemoryDevice::kNull));
  // Reached through a symbolic link: the device is written, the link kept.
  fs::create_symlink(full, dir / "link-to-full");
  expect_one_line_error(
      run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", (dir / "link-to-full").string()}), 4,
      "No space left");
  EXPECT_TRUE(fs::is_symlink(dir / "link-to-full"));
  EXPECT_TRUE(is_device_node(full, MemoryDevice::kFull));
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"full", "kept.csv", "link-to-full", "null", "run.csv"}));
  fs::remove_all(dir);
}

TEST(OneWriter, APageReachesAFifosReader) {
  const fs::path dir = scratch("fifo");
  const fs::path csv = run_csv(dir), fifo = dir / "page.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader's end is open before mechint starts (without blocking: no writer yet), so mechint
  // finds its reader at once; a thread drains the FIFO while mechint writes, until mechint is done
  // and the FIFO is empty: no sleep, no timing.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  std::atomic<bool> done{false};
  std::string page;
  std::thread drain([&] {
    char buffer[1 << 16];
    for (;;) {
      const bool finished = done.load();  // read before the last drain: nothing is written after it
      pollfd event{reader, POLLIN, 0};
      ::poll(&event, 1, 100);
      for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) page.append(buffer, static_cast<std::size_t>(n));
      if (finished) return;
    }
  });
  const CliResult r = run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", fifo.string()});
  done = true;
  drain.join();
  ::close(reader);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << page.substr(0, 100);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  fs::remove_all(dir);
}

TEST(OneWriter, AFifoWithoutAReaderIsAnErrorNotAHang) {
  const fs::path dir = scratch("fifo_alone");
  const fs::path csv = run_csv(dir), fifo = dir / "page.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error(run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", fifo.string()}), 4,
                        "no reader");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(leftover_temporaries(fifo), 0);
  fs::remove_all(dir);
}

TEST(OneWriter, DashIsStandardOutput) {
  const fs::path dir = scratch("dash");
  const fs::path csv = run_csv(dir);
  LaunchOptions in_dir;
  in_dir.working_directory = dir.string();
  const CliResult r = run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", "-"}, in_dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_FALSE(fs::exists(dir / "-"));
  // The page on standard output, the CSV into a file.
  const CliResult animated =
      run_mechint_argv({"run", "kepler", "--t-end", "0.5", "--out", "k.csv", "--animate", "-"}, in_dir);
  EXPECT_EQ(animated.status, 0) << animated.err;
  EXPECT_EQ(animated.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(read_file(dir / "k.csv").rfind("t,x,y", 0), 0u);
  // Both on standard output would be one stream of two files: refused before the run.
  expect_one_line_error(run_mechint_argv({"run", "kepler", "--t-end", "0.5", "--animate", "-"}, in_dir), 2,
                        "standard output");
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"k.csv", "run.csv"}));
  fs::remove_all(dir);
}

TEST(OneWriter, DevStdoutOnAPipeIsWrittenThrough) {
  const fs::path dir = scratch("pipe");
  const fs::path out = dir / "out", err = dir / "err", status = dir / "status";
  // /dev/stdout is /proc/self/fd/1, a link to "pipe:[N]": the pipe is written, no file is made.
  const std::string command = "{ " + std::string(MECHINT_EXECUTABLE) + " run kepler --t-end 0.5 --out " +
                              (dir / "k.csv").string() + " --animate /dev/stdout 2>" + err.string() + "; echo $? >" +
                              status.string() + "; } | cat > " + out.string();
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_file(status), "0\n") << read_file(err);
  EXPECT_EQ(read_file(err), "");
  EXPECT_EQ(read_file(out).rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"err", "k.csv", "out", "status"}));
  // The CSV through /dev/stdout on a pipe as well.
  const std::string csv_command = "{ " + std::string(MECHINT_EXECUTABLE) + " run kepler --t-end 0.5 --out /dev/stdout 2>" +
                                  err.string() + "; echo $? >" + status.string() + "; } | cat > " + out.string();
  ASSERT_EQ(std::system(csv_command.c_str()), 0);
  EXPECT_EQ(read_file(status), "0\n") << read_file(err);
  EXPECT_EQ(read_file(out).rfind("t,x,y", 0), 0u);
  fs::remove_all(dir);
}

TEST(OneWriter, OptimizeNeverRemovesWhatItDidNotWrite) {
  const fs::path dir = scratch("optimize");
  const fs::path out = dir / "result";
  fs::create_directories(out);
  // An earlier result of optimize, and a file of the user's put beside it.
  write_text(out / ".mechint-optimize", "optimize\n");
  write_text(out / "results.json", "{\"cost\": 1}\n");
  write_text(out / "my-notes.txt", "keep me\n");
  expect_one_line_error(
      run_mechint_argv({"optimize", kSource + "/examples/problems/pendulum-swing-up.toml", "--out", out.string()}), 2,
      "my-notes.txt");
  EXPECT_EQ(read_file(out / "my-notes.txt"), "keep me\n");
  EXPECT_EQ(read_file(out / "results.json"), "{\"cost\": 1}\n");
  // A directory of optimize's own names but one of them a link (to the user's file): not optimize's.
  fs::remove(out / "my-notes.txt");
  write_text(dir / "elsewhere.csv", "mine\n");
  fs::create_symlink(dir / "elsewhere.csv", out / "trajectory.csv");
  expect_one_line_error(
      run_mechint_argv({"optimize", kSource + "/examples/problems/pendulum-swing-up.toml", "--out", out.string()}), 2,
      "trajectory.csv");
  EXPECT_EQ(read_file(dir / "elsewhere.csv"), "mine\n");
  EXPECT_TRUE(fs::is_symlink(out / "trajectory.csv"));
  fs::remove_all(dir);
}

/// A private, empty model cache (0700), so that the model is compiled by the command under test.
fs::path fresh_cache(const std::string& name) {
  const fs::path cache = scratch(name);
  fs::permissions(cache, fs::perms::owner_all);
  return cache;
}

TEST(OneLine, AFailureAfterACompileIsOneLine) {
  const fs::path dir = scratch("compiled_then_failed");
  const fs::path model = dir / "log.toml";
  // log of a negative at the start: refused once the model is compiled.
  write_text(model,
             "name = \"log-of-negative\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5*x_dot^2 - log(x)\"\n"
             "[initial]\nx = -1.0\n");
  LaunchOptions options;
  options.environment = {"MECHINT_CACHE_DIR=" + fresh_cache("cache_a").string()};
  const CliResult first = run_mechint_argv({"run", model.string(), "--t-end", "0.1"}, options);
  EXPECT_NE(first.status, 0);
  EXPECT_NE(first.status, 1) << first.err;
  EXPECT_EQ(count_lines(first.err), 1) << first.err;
  EXPECT_EQ(first.err.find("compiled"), std::string::npos) << first.err;
  // A success after a compile says so, once, after the run.
  write_text(model, "name = \"oscillator\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5*x_dot^2 - 0.5*x^2\"\n"
                    "[initial]\nx = 1.0\n");
  const CliResult ok = run_mechint_argv({"run", model.string(), "--t-end", "0.1"}, options);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(count_lines(ok.err), 1) << ok.err;
  EXPECT_EQ(ok.err.rfind("mechint: compiled ", 0), 0u) << ok.err;
  fs::remove_all(dir);
}

TEST(OneLine, AMessageNamingTheVelocityIsReadable) {
  const fs::path dir = scratch("velocity");
  const fs::path model = dir / "pendulum.toml";
  // The spherical pendulum of examples/, released with a velocity off the sphere's tangent plane.
  std::string text = read_file(kSource + "/examples/models/spherical-pendulum.toml");
  text += "x_dot = 1.0\n";
  write_text(model, text);
  LaunchOptions options;
  options.environment = {"MECHINT_CACHE_DIR=" + fresh_cache("cache_b").string()};
  const CliResult r = run_mechint_argv({"run", model.string(), "--t-end", "0.1"}, options);
  expect_one_line_error(r, 2, "Dg(q0) q\xcc\x87" "0");  // q̇ as UTF-8, not escaped into \xcc\x87
  EXPECT_EQ(r.err.find("\\x"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

}  // namespace
