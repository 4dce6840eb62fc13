#include "app/sweep.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/sweep_journal.hpp"
#include "app/sweep_plan.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

/// Makes `dir` the sweep's directory: new, empty, or holding this same sweep (sweep.json equal in
/// everything but the sweep file's path), then (re)writes its sweep.json.
void prepare_directory(const fs::path& dir, const nlohmann::json& record) {
  const std::string shown = quote_for_message(dir.string(), 200);
  std::error_code error;
  const fs::path json_path = dir / "sweep.json";
  if (fs::exists(dir, error)) {
    if (!fs::is_directory(dir, error)) throw InvalidInput("--out " + shown + " is not a directory");
    if (fs::exists(json_path, error)) {
      nlohmann::json earlier;
      try {
        std::ifstream in(json_path);
        earlier = nlohmann::json::parse(in);
      } catch (const nlohmann::json::exception&) {
        throw InvalidInput("--out " + shown + ": its sweep.json is not readable; choose another directory");
      }
      if (!earlier.is_object() || !earlier.contains("sweep") || earlier["sweep"] != record["sweep"])
        throw InvalidInput("--out " + shown + " holds a different sweep (its sweep.json differs from this sweep " +
                           "file's); choose another directory, or remove it to start over");
    } else if (!fs::is_empty(dir, error)) {
      throw InvalidInput("--out " + shown + " is not empty and holds no sweep.json: choose a new or empty directory");
    }
  } else {
    fs::create_directories(dir, error);
    if (error) throw IoError("cannot create " + shown + ": " + error.message());
  }
  write_text_atomically(json_path.string(), record.dump(2) + "\n");
}

/// Runs the sweep of `spec` (read from `file`, a path or a label) into `out_dir`.
SweepOutcome run_sweep(SweepSpec spec, const std::string& file, const std::string& out_dir, unsigned threads,
                       bool progress, std::ostream& err, const std::function<void()>& check_interrupt) {
  const SweepPlan plan(std::move(spec));
  const fs::path dir(out_dir);
  prepare_directory(dir, {{"file", file}, {"sweep", plan.describe()}});

  SweepJournal journal((dir / "journal.csv").string(), plan.members());
  std::vector<std::string> rows(plan.members());
  std::vector<std::size_t> todo;
  SweepOutcome outcome;
  outcome.members = plan.members();
  for (std::size_t m = 0; m < plan.members(); ++m) {
    if (journal.rows()[m]) {
      rows[m] = *journal.rows()[m];
      ++outcome.resumed;
    } else {
      todo.push_back(m);
    }
  }

  // Members are handed out one at a time from a shared counter: a slow member does not hold up
  // the others' share. No more threads than members left.
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>(threads, todo.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable finished;
  std::size_t done = 0;
  std::exception_ptr error;
  // The journal is forced to the disk about once a second (app/sweep_journal.hpp), and at the end.
  constexpr auto kSyncInterval = std::chrono::seconds(1);
  auto last_sync = std::chrono::steady_clock::now();
  const auto work = [&] {
    while (!stop.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= todo.size()) break;
      std::string row;
      try {
        row = plan.run_member(todo[i], &stop);
      } catch (...) {
        // run_member records the member's own failures: what reaches here stops the sweep.
        const std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        stop.store(true);
        break;
      }
      bool sync = false;
      {
        const std::lock_guard lock(mutex);
        try {
          journal.append(row);
        } catch (...) {
          if (!error) error = std::current_exception();
          stop.store(true);
        }
        rows[todo[i]] = std::move(row);
        ++done;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_sync >= kSyncInterval) {
          last_sync = now;
          sync = true;
        }
        finished.notify_one();
      }
      if (sync) {
        // Outside the lock: the other threads append meanwhile.
        try {
          journal.sync();
        } catch (...) {
          const std::lock_guard lock(mutex);
          if (!error) error = std::current_exception();
          stop.store(true);
        }
      }
    }
    const std::lock_guard lock(mutex);
    finished.notify_one();
  };
  {
    ProgressLine line("mechint sweep " + printable_line(file, 60), static_cast<double>(todo.size()), progress,
                      "members");
    std::vector<std::thread> pool;
    pool.reserve(workers);
    try {
      for (std::size_t t = 0; t < workers; ++t) pool.emplace_back(work);
    } catch (...) {  // no thread left running behind an exception (std::thread's destructor would abort)
      stop.store(true);
      for (auto& t : pool) t.join();
      throw;
    }
    {
      std::unique_lock lock(mutex);
      while (done < todo.size() && !stop.load()) {
        finished.wait_for(lock, std::chrono::milliseconds(100));
        const double shown = static_cast<double>(done);
        lock.unlock();
        line.update(shown);
        if (check_interrupt) {
          try {
            check_interrupt();
          } catch (...) {
            lock.lock();
            if (!error) error = std::current_exception();
            stop.store(true);
            break;
          }
        }
        lock.lock();
      }
    }
    for (auto& t : pool) t.join();
    line.clear();
  }
  if (error) std::rethrow_exception(error);
  journal.sync();

  std::string summary = plan.header_line() + "\n";
  for (const auto& row : rows) {
    summary += row + "\n";
    outcome.failed += row_exit_code(row) != 0;
  }
  write_text_atomically((dir / "summary.csv").string(), summary);
  if (outcome.failed > 0)
    err << "mechint sweep: " << outcome.failed << " of " << outcome.members
        << " members failed (their status and exit are in " << printable_line((dir / "summary.csv").string(), 200)
        << ")\n";
  return outcome;
}

}  // namespace

SweepOutcome sweep_command(const std::string& file, const std::string& out_dir, unsigned threads, bool progress,
                           std::ostream& err, const std::function<void()>& check_interrupt) {
  return run_sweep(read_sweep_file(file), file, out_dir, threads, progress, err, check_interrupt);
}

SweepOutcome sweep_text(std::string_view text, const std::string& label, const std::string& out_dir, unsigned threads,
                        bool progress, std::ostream& err, const std::function<void()>& check_interrupt) {
  return run_sweep(parse_sweep_text(text, label), label, out_dir, threads, progress, err, check_interrupt);
}

}  // namespace mechint::app
