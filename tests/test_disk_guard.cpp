// The disk guard (app/disk_space.hpp, docs/trustworthy-runs.md "A run that cannot fit"): a run whose
// output cannot fit in the free space of its file system is refused at once with exit 4, one line
// and no file; a run that fits is written. The tmpfs tests mount a small file system of a known
// size and need root (CI runs as root); elsewhere they skip and say why.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <sys/mount.h>
#include <unistd.h>

#include "app/disk_space.hpp"
#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"

namespace {

namespace fs = std::filesystem;
using ::mechint::testing::count_lines;
using ::mechint::testing::leftover_temporaries;
using ::mechint::testing::run_mechint_argv;

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / "disk_guard" / name;
  fs::create_directories(dir);
  return dir;
}

TEST(DiskGuard, RowsOfASchedule) {
  // start + N/stride rows, + the end when the stride does not divide N
  EXPECT_EQ(mechint::app::output_rows({0.01, 1.0, 0.0}), 101u);
  EXPECT_EQ(mechint::app::output_rows({0.01, 1.0, 0.1}), 11u);
  EXPECT_EQ(mechint::app::output_rows({0.01, 1.0, 0.3}), 5u);  // 0, 0.3, 0.6, 0.9, 1
  EXPECT_EQ(mechint::app::output_rows({0.01, 1.0, 5.0}), 2u);
}

TEST(DiskGuard, RefusesOnlyWhatExceedsTheFreeSpace) {
  EXPECT_NO_THROW(mechint::app::require_room_for_rows(1000, 100, 100000, "/x"));
  try {
    mechint::app::require_room_for_rows(1000, 100, 99999, "/x");
    FAIL() << "not refused";
  } catch (const mechint::IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("100 kB"), std::string::npos) << what;
    EXPECT_NE(what.find("--output-every"), std::string::npos) << what;
  }
}

// The runaway: 10^10 rows, about 10^12 bytes, with output at every step.
TEST(DiskGuard, TheRunawayRunIsRefusedAtOnceAndWritesNothing) {
  const fs::path dir = scratch_dir("runaway");
  const fs::path out = dir / "k.csv";
  const auto free = mechint::app::free_bytes_in(dir.string());
  ASSERT_TRUE(free.has_value());
  // 10^10 rows of at least 20 bytes: the test means something only on a disk with less free space.
  ASSERT_LT(static_cast<double>(*free), 2e11) << "this disk could hold the runaway run";
  const auto r = run_mechint_argv({"run", "kepler", "--h", "1e-300", "--t-end", "1e-290", "--out", out.string()});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("1e+10 rows"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--output-every"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(leftover_temporaries(out), 0);
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(DiskGuard, StandardOutputRedirectedToAFileIsGuardedToo) {
  // run_mechint_argv sends stdout to a regular file.
  const auto r = run_mechint_argv({"run", "kepler", "--h", "1e-300", "--t-end", "1e-290"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(r.out.empty()) << "the header was written: " << r.out.substr(0, 200);
}

TEST(DiskGuard, ThinnedByOutputEveryTheSameRunIsNotRefused) {
  // The same 10^10-step grid with two rows would run for hours: a grid of 10^4 steps, 3 rows.
  const fs::path out = scratch_dir("thinned") / "k.csv";
  const auto r = run_mechint_argv(
      {"run", "kepler", "--h", "1e-7", "--t-end", "1e-3", "--output-every", "5e-4", "--out", out.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(mechint::testing::read_file(out)), 4);
}

/// A tmpfs of `bytes` mounted at a fresh directory for the life of the object (root only).
class SmallFileSystem {
 public:
  explicit SmallFileSystem(std::uint64_t bytes) : dir_(scratch_dir("tmpfs")) {
    const std::string options = "size=" + std::to_string(bytes);
    mounted_ = ::geteuid() == 0 && ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~SmallFileSystem() {
    if (mounted_) ::umount(dir_.c_str());
  }
  bool mounted() const { return mounted_; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  bool mounted_ = false;
};

// A 1 MiB file system: rows of the harmonic oscillator are ~60-75 bytes.
TEST(DiskGuard, OnASmallFileSystemARunThatFitsIsWrittenAndOneThatDoesNotIsRefused) {
  SmallFileSystem fs1(1 << 20);
  if (!fs1.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): the small-file-system case is untested";
  const auto free = mechint::app::free_bytes_in(fs1.dir().string());
  ASSERT_TRUE(free.has_value());
  const fs::path fits = fs1.dir() / "fits.csv", too_big = fs1.dir() / "too-big.csv";
  // 8000 rows: about half the space.
  auto r = run_mechint_argv({"run", "harmonic-oscillator", "--h", "0.01", "--t-end", "80", "--out", fits.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto written = fs::file_size(fits);
  EXPECT_GT(written, *free / 3) << "the run that fits should fill a good part of the file system";
  EXPECT_LT(written, *free);
  // Ten times as many rows cannot fit in what is left.
  r = run_mechint_argv({"run", "harmonic-oscillator", "--h", "0.01", "--t-end", "800", "--out", too_big.string()});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--output-every"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(too_big));
  EXPECT_EQ(leftover_temporaries(too_big), 0);
  EXPECT_EQ(fs::file_size(fits), written);
}

// A run whose estimate is just under the free space: the estimate from the start row errs low, so
// a run that fits is never refused for being close.
TEST(DiskGuard, OnASmallFileSystemARunThatNearlyFillsItIsWritten) {
  SmallFileSystem fs1(1 << 20);
  if (!fs1.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): the small-file-system case is untested";
  const fs::path probe = fs1.dir() / "probe.csv";
  auto r = run_mechint_argv({"run", "harmonic-oscillator", "--h", "0.01", "--t-end", "10", "--out", probe.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const double bytes_per_row = static_cast<double>(fs::file_size(probe)) / 1001.0;
  fs::remove(probe);
  const auto free = mechint::app::free_bytes_in(fs1.dir().string());
  ASSERT_TRUE(free.has_value());
  // 90 % of the free space, in whole seconds of 100 steps.
  const long seconds = static_cast<long>(0.9 * static_cast<double>(*free) / bytes_per_row / 100.0);
  const fs::path out = fs1.dir() / "nearly-full.csv";
  r = run_mechint_argv(
      {"run", "harmonic-oscillator", "--h", "0.01", "--t-end", std::to_string(seconds), "--out", out.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
}

}  // namespace
