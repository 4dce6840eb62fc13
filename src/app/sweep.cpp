#include "app/sweep.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "app/error_report.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/sweep_csv.hpp"
#include "app/sweep_journal.hpp"
#include "app/sweep_lock.hpp"
#include "app/sweep_plan.hpp"
#include "app/sweep_summary_hdf5.hpp"
#include "app/sweep_trajectories.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

/// Makes `dir` the sweep's directory and locks it for the sweep's life (app/sweep_lock.hpp): new,
/// empty (but for its lock), or holding this same sweep (sweep.json equal in everything but the
/// sweep file's path), then (re)writes its sweep.json. Checked under the lock: two sweeps started
/// at once cannot both find it new.
std::unique_ptr<SweepDirectoryLock> prepare_directory(const fs::path& dir, const nlohmann::json& record) {
  const std::string shown = quote_for_message(dir.string(), 200);
  std::error_code error;
  const fs::path json_path = dir / "sweep.json";
  if (fs::exists(dir, error)) {
    if (!fs::is_directory(dir, error)) throw InvalidInput("--out " + shown + " is not a directory");
  } else {
    fs::create_directories(dir, error);  // another sweep may create it meanwhile: the lock decides
    if (error && !fs::is_directory(dir)) throw IoError("cannot create " + shown + ": " + error.message());
  }
  auto lock = std::make_unique<SweepDirectoryLock>(dir);
  refuse_foreign_entry(json_path.string());  // never read or written through a link
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
  } else {
    for (const auto& entry : fs::directory_iterator(dir, error))
      if (entry.path().filename() != kSweepLockName)
        throw InvalidInput("--out " + shown +
                           " is not empty and holds no sweep.json: choose a new or empty directory");
    if (error) throw IoError("cannot read " + shown + ": " + error.message());
  }
  write_text_atomically(json_path.string(), record.dump(2) + "\n");
  return lock;
}

/// What the journal of `plan`'s sweep is bound to.
JournalBinding binding_of(const SweepPlan& plan) {
  JournalBinding b;
  b.sweep = plan.digest();
  b.members = plan.members();
  b.columns = csv_cells(plan.header_line()).size();
  b.inputs = [&plan](std::size_t m) { return plan.member_inputs(m); };
  return b;
}

/// When every member failed for one and the same reason (exit code and message), the sweep fails
/// as their single run would: with that exit code and that message (summary.csv records them).
void refuse_when_every_member_failed(const std::vector<JournalEntry>& entries, const fs::path& summary) {
  if (entries.empty()) return;
  const std::vector<std::string> first = csv_cells(entries.front().row);
  if (first.size() < 2 || first.back() == "0") return;
  for (const auto& e : entries) {
    const std::vector<std::string> cells = csv_cells(e.row);
    if (cells.size() < 2 || cells.back() != first.back() || cells[cells.size() - 2] != first[first.size() - 2]) return;
  }
  const int exit = std::atoi(first.back().c_str());
  std::string status = first[first.size() - 2];
  // An internal error's status carries the prefix the command line adds again (app/error_report.hpp).
  const std::string internal = described(ErrorReport{ExitCode::kInternalError, ""});
  if (exit == static_cast<int>(ExitCode::kInternalError) && status.starts_with(internal))
    status.erase(0, internal.size());
  const std::string message = std::string(entries.size() > 1 ? "every member failed: " : "the member failed: ") +
                              status + " (summary.csv in " + quote_for_message(summary.parent_path().string(), 200) +
                              " records it)";
  if (exit == static_cast<int>(ExitCode::kBadInput)) throw InvalidInput(message);
  if (exit == static_cast<int>(ExitCode::kNumericalFailure)) throw NumericalFailure(message);
  if (exit == static_cast<int>(ExitCode::kIoError)) throw IoError(message);
  // A bug met by every member is the sweep's failure as it is a single run's: exit 1, reported.
  if (exit == static_cast<int>(ExitCode::kInternalError)) throw std::runtime_error(message);
}

/// What rank 0 tells the other ranks before any member runs: "ok" and the members not yet done, or
/// the refusal it met ("refused <exit code> <message>"), which they raise in turn (silently: rank 0
/// prints it).
std::string start_word(const std::vector<std::size_t>& todo) {
  std::string word = "ok";
  for (const std::size_t m : todo) word += " " + std::to_string(m);
  return word;
}

std::string refusal_word(const Error& e, const char* what) {
  return "refused " + std::to_string(static_cast<int>(e.exit_code())) + " " + what;
}

std::vector<std::size_t> read_start_word(const std::string& word) {
  if (word.starts_with("refused ")) {
    std::istringstream in(word.substr(8));
    int code = 0;
    in >> code;
    std::string message;
    std::getline(in >> std::ws, message);
    if (code == static_cast<int>(ExitCode::kBadInput)) throw InvalidInput(message);
    throw IoError(message);
  }
  std::istringstream in(word.substr(2));
  std::vector<std::size_t> todo;
  for (std::size_t m; in >> m;) todo.push_back(m);
  return todo;
}

SweepOutcome run_members(const SweepPlan& plan, const std::string& file, const fs::path& dir, std::optional<SweepJournal>& journal,
                         std::vector<JournalEntry>& entries, const std::vector<std::size_t>& todo, SweepOutcome outcome,
                         unsigned threads, bool progress, std::ostream& err,
                         const std::function<void()>& check_interrupt, SweepRanks* ranks);

/// Runs the sweep of `spec` (read from `file`, a path or a label) into `out_dir`, on this process's
/// share of the members when `ranks` shares them across an MPI job.
SweepOutcome run_sweep(SweepSpec spec, const std::string& file, const std::string& out_dir, unsigned threads,
                       bool progress, std::ostream& err, const std::function<void()>& check_interrupt,
                       SweepRanks* ranks) {
  // Every rank reads the sweep and its system (a model file compiled, or found in the cache); they
  // agree that all could before going on, so that no rank waits for one that stopped.
  std::optional<SweepPlan> checked;
  try {
    checked.emplace(std::move(spec));
  } catch (...) {
    if (ranks) ranks->on_every_rank(false);
    throw;
  }
  if (ranks && !ranks->on_every_rank(true))
    throw InvalidInput("another rank of the job could not prepare this sweep (run it without mpirun to see why)");
  const SweepPlan& plan = *checked;
  const fs::path dir(out_dir);
  const bool owner = !ranks || ranks->rank() == 0;  // of the directory, the journal and summary.csv

  std::unique_ptr<SweepDirectoryLock> lock;  // held until the sweep returns or throws
  std::optional<SweepJournal> journal;
  std::vector<JournalEntry> entries(plan.members());
  std::vector<std::size_t> todo;
  SweepOutcome outcome;
  outcome.members = plan.members();
  if (owner) {
    try {
      lock = prepare_directory(dir, {{"file", file}, {"sweep", plan.describe()}});
      if (plan.spec().trajectories) {
        // Its own directory, never followed through a link planted at its name.
        const fs::path trajectories = dir / "trajectories";
        const std::string shown = quote_for_message(trajectories.string(), 200);
        std::error_code error;
        if (fs::is_symlink(trajectories, error) || (fs::exists(trajectories, error) && !fs::is_directory(trajectories, error)))
          throw IoError(shown + " is not this sweep's directory (a link or a file): remove it and run again");
        fs::create_directories(trajectories, error);
        if (error) throw IoError("cannot create " + shown + ": " + error.message());
      }
      journal.emplace((dir / "journal.csv").string(), binding_of(plan));
    } catch (const InvalidInput& e) {
      if (ranks) ranks->broadcast(refusal_word(e, e.what()));
      throw;
    } catch (const IoError& e) {
      if (ranks) ranks->broadcast(refusal_word(e, e.what()));
      throw;
    }
    // A journaled member is taken as it is only with the trajectory file its row records: one
    // missing, or not the one written, runs again (its new row supersedes the old one).
    for (std::size_t m = 0; m < plan.members(); ++m) {
      const auto& entry = journal->entries()[m];
      if (entry && (!plan.spec().trajectories || member_trajectory_matches(dir, m, entry->trajectory))) {
        entries[m] = *entry;
        ++outcome.resumed;
      } else {
        todo.push_back(m);
      }
    }
    if (ranks) ranks->broadcast(start_word(todo));
  } else {
    todo = read_start_word(ranks->broadcast(""));
  }
  if (!ranks) return run_members(plan, file, dir, journal, entries, todo, outcome, threads, progress, err, check_interrupt, nullptr);
  // Past the start every rank runs on its own: an error on one stops the whole job (the others
  // would wait for its rows), rank 0 saying why.
  try {
    return run_members(plan, file, dir, journal, entries, todo, outcome, threads, progress, err, check_interrupt, ranks);
  } catch (...) {
    const ErrorReport report = report_of(std::current_exception());  // the one table (app/error_report.hpp)
    const std::string message =
        report.exit == ExitCode::kInternalError ? described(report) : "error: " + report.message;
    if (owner) err << "mechint: " << printable_line(message) << " (rank 0; stopping every rank)\n" << std::flush;
    ranks->abort(static_cast<int>(report.exit));
  }
}

/// This process's share of the members not yet done (`todo`), on its threads; rank 0 (or the process
/// alone) journals every finished row, its own and those the other ranks send, and writes summary.csv.
SweepOutcome run_members(const SweepPlan& plan, const std::string& file, const fs::path& dir, std::optional<SweepJournal>& journal,
                         std::vector<JournalEntry>& entries, const std::vector<std::size_t>& todo, SweepOutcome outcome,
                         unsigned threads, bool progress, std::ostream& err,
                         const std::function<void()>& check_interrupt, SweepRanks* ranks) {
  const JournalBinding binding = binding_of(plan);  // a rank > 0 sends journal lines, checked by rank 0
  const int rank = ranks ? ranks->rank() : 0, size = ranks ? ranks->size() : 1;
  const bool owner = rank == 0;
  // This process's share: every size-th member not yet done, from its rank on (cyclic, so that
  // members of similar cost — neighbours on a grid — are spread over the ranks).
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(rank); i < todo.size(); i += static_cast<std::size_t>(size))
    mine.push_back(todo[i]);
  const std::size_t remote = todo.size() - mine.size();  // rows rank 0 receives from the others

  // Members are handed out one at a time from a shared counter: a slow member does not hold up
  // the others' share. No more threads than members left.
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>(threads, mine.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable finished;
  std::size_t done = 0, received = 0;
  std::vector<std::string> outbox;  // rows of a rank > 0 waiting for the calling thread to send them
  std::exception_ptr error;
  // The journal is forced to the disk about once a second (app/sweep_journal.hpp), and at the end.
  constexpr auto kSyncInterval = std::chrono::seconds(1);
  auto last_sync = std::chrono::steady_clock::now();
  const auto fail = [&](std::exception_ptr e) {  // under the lock
    if (!error) error = e;
    stop.store(true);
  };
  const auto work = [&] {
    while (!stop.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= mine.size()) break;
      JournalEntry entry;
      try {
        if (plan.spec().trajectories) {
          // The trajectory's file first: a member whose row is journaled has one (app/sweep_trajectories.hpp).
          SweepPlan::Trajectory trajectory;
          entry.row = plan.run_member(mine[i], &stop, &trajectory);
          entry.trajectory = write_member_trajectory(dir, mine[i], trajectory);
        } else {
          entry.row = plan.run_member(mine[i], &stop);
        }
      } catch (...) {
        // run_member records the member's own failures: what reaches here stops the sweep.
        const std::lock_guard lock(mutex);
        fail(std::current_exception());
        break;
      }
      bool sync = false;
      {
        const std::lock_guard lock(mutex);
        if (owner) {
          try {
            journal->append(entry);
          } catch (...) {
            fail(std::current_exception());
          }
          entries[mine[i]] = std::move(entry);
          const auto now = std::chrono::steady_clock::now();
          if (now - last_sync >= kSyncInterval) {
            last_sync = now;
            sync = true;
          }
        } else {
          outbox.push_back(journal_line(binding, entry));
        }
        ++done;
        finished.notify_one();
      }
      if (sync) {
        // Outside the lock: the other threads append meanwhile.
        try {
          journal->sync();
        } catch (...) {
          const std::lock_guard lock(mutex);
          fail(std::current_exception());
        }
      }
    }
    const std::lock_guard lock(mutex);
    finished.notify_one();
  };
  // The calling thread's share of the work while the members run: the progress line, the Python
  // module's interrupt check, and the messages between ranks (only this thread calls MPI).
  const auto exchange = [&](std::unique_lock<std::mutex>& lock) {
    if (!ranks) return;
    if (owner) {
      while (auto line = ranks->receive_row()) {
        auto [m, entry] = journal->append_checked(*line);
        entries[m] = std::move(entry);
        ++received;
      }
    } else {
      std::vector<std::string> sending;
      sending.swap(outbox);
      lock.unlock();
      for (const auto& row : sending) ranks->send_row(row);
      lock.lock();
    }
  };
  const auto busy = [&] {
    return done < mine.size() || (owner ? received < remote : !outbox.empty());
  };
  {
    ProgressLine line("mechint sweep " + printable_line(file, 60), static_cast<double>(todo.size()),
                      progress && owner, "members");
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
      // Between ranks the calling thread also waits for messages: it looks more often.
      const auto interval = std::chrono::milliseconds(ranks ? 5 : 100);
      while (busy() && !stop.load()) {
        finished.wait_for(lock, interval);
        try {
          exchange(lock);
        } catch (...) {
          fail(std::current_exception());
          break;
        }
        const double shown = static_cast<double>(done + received);
        lock.unlock();
        line.update(shown);
        if (check_interrupt) {
          try {
            check_interrupt();
          } catch (...) {
            lock.lock();
            fail(std::current_exception());
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
  if (!owner) return outcome;  // rank 0 writes the summary
  journal->sync();

  std::string summary = plan.header_line() + "\n";
  std::vector<std::string> rows, records;
  rows.reserve(entries.size());
  for (const auto& entry : entries) {
    summary += entry.row + "\n";
    outcome.failed += row_exit_code(entry.row) != 0;
    rows.push_back(entry.row);
    records.push_back(entry.trajectory);
  }
  write_text_atomically((dir / "summary.csv").string(), summary);
  refuse_foreign_entry((dir / "summary.h5").string());  // before the file is built
  write_summary_h5(dir, plan.header_line(), rows);
  if (plan.spec().trajectories) {
    refuse_foreign_entry((dir / "trajectories.h5").string());
    write_trajectories_h5(dir, records);
  }
  refuse_when_every_member_failed(entries, dir / "summary.csv");
  if (outcome.failed > 0)
    err << "mechint sweep: " << outcome.failed << " of " << outcome.members
        << " members failed (their status and exit are in " << printable_line((dir / "summary.csv").string(), 200)
        << ")\n";
  return outcome;
}

}  // namespace

SweepOutcome sweep_command(const std::string& file, const std::string& out_dir, unsigned threads, bool progress,
                           std::ostream& err, const std::function<void()>& check_interrupt, SweepRanks* ranks) {
  return run_sweep(read_sweep_file(file), file, out_dir, threads, progress, err, check_interrupt, ranks);
}

SweepOutcome sweep_text(std::string_view text, const std::string& label, const std::string& out_dir, unsigned threads,
                        bool progress, std::ostream& err, const std::function<void()>& check_interrupt) {
  return run_sweep(parse_sweep_text(text, label), label, out_dir, threads, progress, err, check_interrupt, nullptr);
}

}  // namespace mechint::app
