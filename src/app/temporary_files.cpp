#include "app/temporary_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "mechint/core/errors.hpp"

namespace mechint::app {
namespace {

constexpr int kSlots = 16;
constexpr std::size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> in_use{false};
  char path[kPathMax] = {};
};
std::array<Slot, kSlots> slots;

void on_signal(int signal) {
  // Files first, then directories (a staging directory of `optimize`), which must be empty by then.
  for (auto& slot : slots)
    if (slot.in_use.load()) ::unlink(slot.path);
  for (auto& slot : slots)
    if (slot.in_use.load()) ::rmdir(slot.path);
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
    if (slots[i].in_use.load()) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].in_use.store(true);
    slot_ = i;
    return;
  }
  throw std::logic_error("too many temporary files at once");
}

TemporaryFileGuard::~TemporaryFileGuard() {
  if (slot_ >= 0) slots[slot_].in_use.store(false);
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
