#include "app/temporary_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "app/progress.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::app {
namespace {

constexpr int kSlots = 16;
constexpr std::size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> claimed{false};  ///< taken by a guard (two threads never take one slot)
  std::atomic<bool> in_use{false};   ///< its path is complete: the handler may remove it
  char path[kPathMax] = {};
};
std::array<Slot, kSlots> slots;
/// Process groups of running children (0: free).
std::array<std::atomic<int>, 4> child_groups{};

void on_signal(int signal) {
  // The children first: a compiler killed after its output was removed could write it again.
  for (auto& group : child_groups)
    if (const int pid = group.load(); pid > 0) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
  // Files first, then directories (a staging directory of `optimize`), which must be empty by then.
  for (auto& slot : slots)
    if (slot.in_use.load()) ::unlink(slot.path);
  for (auto& slot : slots)
    if (slot.in_use.load()) ::rmdir(slot.path);
  // A progress line on the terminal (app/progress.hpp) is erased, so that this line starts clean.
  if (progress_line_shown()) {
    constexpr char kErase[] = "\r\033[K";
    [[maybe_unused]] const auto erased = ::write(STDERR_FILENO, kErase, sizeof kErase - 1);
  }
  const char* line = signal == SIGINT ? "mechint: interrupted (SIGINT); temporary files removed\n"
                                      : "mechint: terminated (SIGTERM); temporary files removed\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line, std::strlen(line));
  ::_exit(128 + signal);
}

}  // namespace

TemporaryFileGuard::TemporaryFileGuard(const std::string& path) {
  if (path.size() >= kPathMax) throw InvalidInput("output path is too long");
  // The path is written before the flag is set, so the handler never reads a half-written one.
  for (int i = 0; i < kSlots; ++i) {
    bool free = false;
    if (!slots[i].claimed.compare_exchange_strong(free, true)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].in_use.store(true);
    slot_ = i;
    return;
  }
  throw std::logic_error("too many temporary files at once");
}

TemporaryFileGuard::~TemporaryFileGuard() {
  if (slot_ < 0) return;
  slots[slot_].in_use.store(false);
  slots[slot_].claimed.store(false);
}

ChildGroupGuard::ChildGroupGuard(int pid) {
  for (int i = 0; i < static_cast<int>(child_groups.size()); ++i) {
    int free = 0;
    if (child_groups[i].compare_exchange_strong(free, pid)) {
      slot_ = i;
      return;
    }
  }
  // More children at once than slots: this one is still killed with its parent (PR_SET_PDEATHSIG).
}

ChildGroupGuard::~ChildGroupGuard() {
  if (slot_ >= 0) child_groups[slot_].store(0);
}

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string temporary_path_for(const std::string& target) {
  const std::filesystem::path p(target);
  // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "." + std::string.
  std::string name = ".";
  name += p.filename().string();
  name += '.';
  name += std::to_string(::getpid());
  name += ".partial";
  return (p.has_parent_path() ? p.parent_path() / name : std::filesystem::path(name)).string();
}

}  // namespace mechint::app
