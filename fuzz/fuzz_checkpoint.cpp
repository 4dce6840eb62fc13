// libFuzzer target over the checkpoint files that `mechint run ... --resume FILE` reads
// (app/checkpoint.cpp: the RunCheckpoint constructor with resume = true, then bind). See
// docs/fuzzing.md.
//
// Input: the bytes of a checkpoint file. The constructor takes a path and locks FILE.rows beside
// it, so every input is written to one file of this process, in a directory of its own
// (fuzz_checks.hpp: private_path), with an empty FILE.rows beside it. Each input is read twice: as it
// is, and "repaired" -- its version line set to this build's and its checksum recomputed -- so that
// mutations get past the checksum to the fields behind it (a random change almost never keeps the
// checksum right) and the seeds stay useful when the version changes.
//
// Finding: a crash, a hang, a sanitizer report, an exception other than mechint::InvalidInput or
// mechint::IoError, a message that is not one printable line, an accepted checkpoint with a
// non-finite time, or a checkpoint that, refused or accepted, leaves a file descriptor open or
// FILE.rows locked once the RunCheckpoint is gone (the header: FILE.rows is locked "for as long as a
// run or a resume holds it"; a leaked lock would also refuse every later input as "in use by
// another mechint run") (__builtin_trap).
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "app/checkpoint.hpp"
#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"

#ifndef MECHINT_VERSION
#error "MECHINT_VERSION must be defined by the build (as for app/checkpoint.cpp)"
#endif

namespace {

using mechint::app::CheckpointRequest;
using mechint::app::RunCheckpoint;

/// A description as `mechint run` binds it (app/run_system.cpp): items `name=value` joined by ';'.
constexpr const char* kDescription = "system=kepler;method=vi-midpoint;h=0.01;t_end=10000000;mu=1;check=on";

const std::string& input_path() {
  static const std::string path = mechint::fuzz::private_path("checkpoint");
  return path;
}

void write_input(std::string_view bytes) {
  mechint::fuzz::write_file(input_path(), bytes);
  // The rows written before the checkpoint: --resume needs the file (it truncates it, but only
  // once the run has started, not in the constructor).
  const int rows = ::open((input_path() + ".rows").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (rows < 0) std::abort();
  ::close(rows);
}

/// The checksum of app/checkpoint.cpp: FNV-1a, 64 bits, over everything before the checksum field.
std::uint64_t checksum(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The input with its second line made `version MECHINT_VERSION` and its last `checksum` field
/// (at the start of a line) made the checksum of what precedes it; "" when it has neither.
std::string repaired(std::string_view input) {
  std::string text(input);
  const std::size_t first = text.find('\n');
  if (first == std::string::npos) return "";
  const std::size_t second = text.find('\n', first + 1);
  if (second == std::string::npos) return "";
  text.replace(first + 1, second - first - 1, std::string("version ") + MECHINT_VERSION);
  std::size_t at = text.rfind("\nchecksum ");
  if (at == std::string::npos) return "";
  ++at;
  const std::string sum = std::to_string(checksum(std::string_view(text).substr(0, at)));
  text.replace(at, std::string::npos, "checksum " + std::to_string(sum.size()) + "\n" + sum + "\n");
  return text;
}

/// One printable line of bounded length.
void check_message(std::string_view message) {
  FUZZ_CHECK(!message.empty() && mechint::fuzz::printable(message));
  FUZZ_CHECK(message.size() <= 1000);
}

/// The number of open file descriptors of this process.
int open_descriptors() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) std::abort();
  int count = 0;
  while (::readdir(dir)) ++count;
  ::closedir(dir);
  return count;
}

/// Nothing holds FILE.rows: a new descriptor can lock it at once.
bool rows_unlocked() {
  const int fd = ::open((input_path() + ".rows").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) std::abort();
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // releases the lock taken here
  return free;
}

void resume(std::string_view bytes) {
  write_input(bytes);
  const int descriptors = open_descriptors();
  mechint::fuzz::expect_only_refusals(
      [] {
        RunCheckpoint checkpoint(CheckpointRequest{input_path(), 1.0, true});
        FUZZ_CHECK(checkpoint.resuming());
        FUZZ_CHECK(checkpoint.path() == input_path());
        FUZZ_CHECK(checkpoint.rows_path() == input_path() + ".rows");
        FUZZ_CHECK(std::isfinite(checkpoint.saved_time()));
        FUZZ_CHECK(!checkpoint.saved_once());
        // Another run's command line is refused with one line naming the first difference.
        checkpoint.bind(kDescription);
      },
      check_message);
  if (open_descriptors() != descriptors || !rows_unlocked()) {
    std::fprintf(stderr, "fuzz_checkpoint: the RunCheckpoint is gone but FILE.rows is still open and locked\n");
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  resume(input);
  const std::string fixed = repaired(input);
  if (!fixed.empty() && fixed != input) resume(fixed);
  return 0;
}
