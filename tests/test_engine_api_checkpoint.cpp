// Checkpoints of the C++ API (RunOptions::checkpoint, checkpoint_every, resume; docs/cpp-api.md): a
// run from C++ killed (SIGKILL, in a child process) at a random moment after a checkpoint and resumed
// returns the rows of the run never interrupted, bit for bit, computed in the same test — for a
// built-in and a model file; its checkpoint is the command line's (the command line resumes one
// written from C++, and C++ one written by the command line); wrong uses throw the command line's
// exit codes and leave nothing behind.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.hpp"
#include "mechint/mechint.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using mechint::testing::count_lines;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

struct Oscillator {  // L = ½ v² − ½ q²
  static constexpr int kDim = 1, kNumConstraints = 0, kNumSymmetries = 0;
  template <class T> T lagrangian(const mechint::Vec<T, 1>& q, const mechint::Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0] - 0.5 * q[0] * q[0];
  }
};

/// The exit code of what `f` throws (0: nothing), and its message in `message`.
template <class F>
int exit_code_of(F f, std::string* message = nullptr) {
  try {
    f();
  } catch (const mechint::Error& e) {
    if (message) *message = e.what();
    return static_cast<int>(e.exit_code());
  }
  return 0;
}

/// Same columns, same rows, every value the same bits.
void expect_same_bits(const mechint::Table& got, const mechint::Table& expected, const std::string& what) {
  ASSERT_EQ(got.columns(), expected.columns()) << what;
  ASSERT_EQ(got.rows(), expected.rows()) << what;
  for (const auto& name : expected.columns()) {
    const auto a = got[name], b = expected[name];
    for (std::size_t i = 0; i < b.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(a[i]), std::bit_cast<std::uint64_t>(b[i]))
          << what << ": column " << name << ", row " << i << ": " << a[i] << " against " << b[i];
  }
}

/// The modification time of `path` in nanoseconds (-1: absent): a checkpoint is renamed into place
/// at each save, so each save gives a new one.
long long written_at(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec : -1LL;
}

/// Waits until the process `pid` has saved `wanted` checkpoints to `checkpoint` and kills it
/// (SIGKILL). Returns true when it was killed, false when it ended first (its exit status in
/// `status`).
bool kill_after_saves(pid_t pid, const std::string& checkpoint, int wanted, int& status) {
  long long last = written_at(checkpoint);
  for (int seen = 0; seen < wanted;) {
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    if (const long long now = written_at(checkpoint); now != last && now >= 0) {
      last = now;
      ++seen;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status);
}

/// Runs `system.run(options)` in a child process (fork) and kills it after 1 to 3 checkpoints it
/// saved. Returns true when it was killed mid-run.
bool run_killed(const mechint::System& system, const mechint::RunOptions& options, std::mt19937& random) {
  const std::string checkpoint = options.resume.empty() ? options.checkpoint : options.resume;
  const pid_t pid = fork();
  if (pid == 0) {
    int code = 0;
    try {
      system.run(options);
    } catch (const mechint::Error& e) {
      code = static_cast<int>(e.exit_code());
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  EXPECT_GT(pid, 0);
  int status = 0;
  const bool killed = kill_after_saves(pid, checkpoint, std::uniform_int_distribution<int>(1, 3)(random), status);
  if (!killed) EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the checkpointed run failed";
  return killed;
}

/// Starts `mechint <args>` (output discarded) and returns its pid.
pid_t spawn_mechint(const std::vector<std::string>& args) {
  std::vector<std::string> words{MECHINT_EXECUTABLE};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, MECHINT_EXECUTABLE, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -1;
}

class EngineApiCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mechint_engine_api_checkpoint_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Runs `options` uninterrupted, then with a checkpoint, killed after 1–3 of its checkpoints,
  /// resumed and killed once more when the resumed run lasts long enough, and finally resumed to
  /// its end in this process: the rows it returns are the uninterrupted run's, bit for bit.
  void expect_resume_identical(const mechint::System& system, mechint::RunOptions options) {
    mechint::RunOptions plain = options;
    plain.checkpoint_every = 0.0;
    const mechint::Trajectory reference = system.run(plain);
    const std::string checkpoint = (dir_ / "run.checkpoint").string();
    std::mt19937 random(std::random_device{}());
    options.checkpoint = checkpoint;
    int kills = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!run_killed(system, options, random)) break;
      ++kills;
      options.checkpoint.clear();
      options.resume = checkpoint;
    }
    ASSERT_GE(kills, 1) << "the run was never interrupted: lengthen it";
    ASSERT_TRUE(fs::exists(checkpoint) && fs::exists(checkpoint + ".rows"));
    // Truly mid-way: the rows written before the kill are fewer than the run's.
    const int written = count_lines(read_file(checkpoint + ".rows")) - 1;
    EXPECT_LT(written, static_cast<int>(reference.rows()));
    EXPECT_GT(written, 0);
    ASSERT_EQ(options.resume, checkpoint);
    const mechint::Trajectory resumed = system.run(options);
    expect_same_bits(resumed, reference, "resumed after " + std::to_string(kills) + " kills");
    EXPECT_FALSE(fs::exists(checkpoint)) << "a completed run removes its checkpoint";
    EXPECT_FALSE(fs::exists(checkpoint + ".rows"));
    EXPECT_TRUE(fs::is_empty(dir_));
  }

  fs::path dir_;
};

TEST_F(EngineApiCheckpoint, AKilledBuiltInRunResumesBitForBit) {
  expect_resume_identical(mechint::System::open("kepler", {{"vy", 1.1}}),
                          {.method = "vi-midpoint", .h = 0.0005, .t_end = 300.0, .output_every = 0.01,
                           .checkpoint_every = 15.0});
}

TEST_F(EngineApiCheckpoint, AKilledModelFileRunResumesBitForBit) {
  const std::string file = std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml";
  expect_resume_identical(mechint::System::open(file),
                          {.method = "vi-gauss4", .h = 0.002, .t_end = 600.0, .output_every = 0.02,
                           .checkpoint_every = 30.0});
}

// A run from C++ without interruption: the rows of the run without a checkpoint, nothing left.
TEST_F(EngineApiCheckpoint, ACompletedCheckpointedRunIsThePlainRun) {
  const mechint::System system = mechint::System::open("spherical-pendulum");
  const mechint::Trajectory plain = system.run({.h = 0.01, .t_end = 5.0});
  const std::string checkpoint = (dir_ / "c").string();
  expect_same_bits(system.run({.h = 0.01, .t_end = 5.0, .checkpoint = checkpoint, .checkpoint_every = 0.5}), plain,
                   "checkpointed");
  // checkpoint_every 0: a tenth of t_end, as --checkpoint without --checkpoint-every.
  expect_same_bits(system.run({.h = 0.01, .t_end = 5.0, .checkpoint = checkpoint}), plain, "default interval");
  EXPECT_TRUE(fs::is_empty(dir_));
}

// The command line resumes a checkpoint written from C++: its --out is the command line's own
// uninterrupted output, byte for byte.
TEST_F(EngineApiCheckpoint, TheCommandLineResumesACheckpointWrittenFromCpp) {
  const std::vector<std::string> run = {"run", "kepler", "--set", "vy=1.1", "--h", "0.0005", "--t-end", "300",
                                        "--output-every", "0.01"};
  const auto reference = run_mechint_argv(run);
  ASSERT_EQ(reference.status, 0) << reference.err;
  const mechint::System system = mechint::System::open("kepler", {{"vy", 1.1}});
  const std::string checkpoint = (dir_ / "run.checkpoint").string(), out = (dir_ / "out.csv").string();
  std::mt19937 random(std::random_device{}());
  ASSERT_TRUE(run_killed(system, {.h = 0.0005, .t_end = 300.0, .output_every = 0.01, .checkpoint = checkpoint,
                                  .checkpoint_every = 15.0},
                         random))
      << "the run was never interrupted: lengthen it";
  auto resume = run;
  for (const std::string& word : {std::string("--out"), out, std::string("--resume"), checkpoint}) resume.push_back(word);
  const auto resumed = run_mechint_argv(resume);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(read_file(out), reference.out);
  EXPECT_FALSE(fs::exists(checkpoint));
  EXPECT_FALSE(fs::exists(checkpoint + ".rows"));
}

// C++ resumes a checkpoint the command line wrote: every row, those before the checkpoint read back
// from its rows file, bit for bit the run never interrupted.
TEST_F(EngineApiCheckpoint, ACppRunResumesTheCommandLinesCheckpoint) {
  const mechint::System system = mechint::System::open("kepler", {{"vy", 1.1}});
  const mechint::RunOptions options{.h = 0.0005, .t_end = 300.0, .output_every = 0.01};
  const mechint::Trajectory reference = system.run(options);
  const std::string checkpoint = (dir_ / "run.checkpoint").string(), out = (dir_ / "out.csv").string();
  const pid_t pid = spawn_mechint({"run", "kepler", "--set", "vy=1.1", "--h", "0.0005", "--t-end", "300",
                                   "--output-every", "0.01", "--out", out, "--checkpoint", checkpoint,
                                   "--checkpoint-every", "15"});
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_TRUE(kill_after_saves(pid, checkpoint, 2, status)) << "the run ended before it was killed: lengthen it";
  mechint::RunOptions resume = options;
  resume.resume = checkpoint;
  expect_same_bits(system.run(resume), reference, "resumed from the command line's checkpoint");
  EXPECT_TRUE(fs::is_empty(dir_)) << "the checkpoint and its rows are removed; no --out was given to C++";
}

// A checkpoint resumes only its own run, intact; what the command line refuses, C++ refuses with
// its exit code, leaving the checkpoint as it was.
TEST_F(EngineApiCheckpoint, AForeignOrDamagedCheckpointIsRefused) {
  const mechint::System system = mechint::System::open("kepler");
  const mechint::RunOptions options{.h = 0.0005, .t_end = 300.0, .output_every = 0.01};
  const std::string checkpoint = (dir_ / "run.checkpoint").string();
  std::mt19937 random(std::random_device{}());
  mechint::RunOptions first = options;
  first.checkpoint = checkpoint;
  first.checkpoint_every = 15.0;
  ASSERT_TRUE(run_killed(system, first, random));
  const std::string saved = read_file(checkpoint);
  mechint::RunOptions resume = options;
  resume.resume = checkpoint;
  std::string message;
  // Another run: another setting, another method, another system.
  EXPECT_EQ(exit_code_of([&] { mechint::System::open("kepler", {{"mu", 2.0}}).run(resume); }, &message), 2);
  EXPECT_NE(message.find("another run"), std::string::npos) << message;
  mechint::RunOptions trapezoid = resume;
  trapezoid.method = "vi-trapezoid";
  EXPECT_EQ(exit_code_of([&] { system.run(trapezoid); }, &message), 2);
  EXPECT_NE(message.find("method=vi-midpoint"), std::string::npos) << message;
  EXPECT_EQ(exit_code_of([&] { mechint::System::open("harmonic-oscillator").run(resume); }, &message), 2);
  EXPECT_NE(message.find("system=kepler"), std::string::npos) << message;
  // Damaged: a flipped bit, cut short; another version.
  std::string damaged = saved;
  damaged[damaged.size() / 2] ^= 0x20;
  std::ofstream(checkpoint, std::ios::binary) << damaged;
  EXPECT_EQ(exit_code_of([&] { system.run(resume); }, &message), 2);
  EXPECT_NE(message.find("not a mechint checkpoint"), std::string::npos) << message;
  std::ofstream(checkpoint, std::ios::binary) << saved.substr(0, saved.size() / 3);
  EXPECT_EQ(exit_code_of([&] { system.run(resume); }, &message), 2);
  std::string other = saved;
  other.replace(other.find("version "), std::string("version ").size(), "version 9");
  std::ofstream(checkpoint, std::ios::binary) << other;
  EXPECT_EQ(exit_code_of([&] { system.run(resume); }, &message), 2);
  EXPECT_NE(message.find("only in the version that wrote it"), std::string::npos) << message;
  // Missing: the file, or its rows.
  mechint::RunOptions missing = options;
  missing.resume = (dir_ / "none").string();
  EXPECT_EQ(exit_code_of([&] { system.run(missing); }, &message), 2);
  EXPECT_NE(message.find("cannot read"), std::string::npos) << message;
  std::ofstream(checkpoint, std::ios::binary) << saved;
  fs::rename(checkpoint + ".rows", dir_ / "rows");
  EXPECT_EQ(exit_code_of([&] { system.run(resume); }, &message), 2);
  EXPECT_NE(message.find("missing"), std::string::npos) << message;
  fs::rename(dir_ / "rows", checkpoint + ".rows");
  // After all these refusals the intact checkpoint still resumes to the run never interrupted.
  expect_same_bits(system.run(resume), system.run(options), "resumed after the refusals");
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Wrong uses: the command line's exit code (2) and nothing left behind.
TEST_F(EngineApiCheckpoint, WrongUsesThrowTheCommandLinesExitCodes) {
  const mechint::System kepler = mechint::System::open("kepler");
  const std::string ck = (dir_ / "c").string();
  std::string message;
  const auto refused = [&](const mechint::System& system, const mechint::RunOptions& options,
                           const std::string& fragment) {
    EXPECT_EQ(exit_code_of([&] { system.run(options); }, &message), 2) << fragment;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  };
  refused(kepler, {.t_end = 1.0, .checkpoint_every = 0.1}, "needs --checkpoint");
  refused(kepler, {.t_end = 1.0, .checkpoint = ck, .checkpoint_every = -1.0}, "positive");
  refused(kepler, {.t_end = 1.0, .checkpoint = ck, .checkpoint_every = std::nan("")}, "positive");
  refused(kepler, {.t_end = 1.0, .checkpoint = ck, .resume = (dir_ / "d").string()}, "different files");
  refused(kepler, {.method = "dopri5", .t_end = 1.0, .checkpoint = ck}, "not available for method 'dopri5'");
  refused(mechint::System::open("spherical-pendulum"), {.method = "dae", .t_end = 1.0, .checkpoint = ck},
          "not available for method 'dae'");
  refused(kepler, {.t_end = 1.0, .checkpoint = dir_.string()}, "not a regular file");
  refused(kepler, {.t_end = 1.0, .checkpoint = "/dev/null"}, "not a regular file");
  refused(kepler, {.h = 0.3, .t_end = 1.0, .checkpoint = ck}, "");  // the grid, checked as without a checkpoint
  // A model struct cannot be told from another in a checkpoint.
  refused(mechint::System::from_model(Oscillator{}, {{"q1", 1.0}}), {.t_end = 1.0, .checkpoint = ck}, "model struct");
  EXPECT_TRUE(fs::is_empty(dir_)) << "a refused run leaves nothing";
  // The model file a run reads is never the checkpoint it writes.
  const fs::path model = dir_ / "osc.toml";
  fs::copy_file(std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml", model);
  const std::string text = read_file(model);
  refused(mechint::System::open(model.string()), {.t_end = 1.0, .checkpoint = model.string()}, "the same file");
  EXPECT_EQ(read_file(model), text);
  // A checkpoint another run holds (its rows file locked): refused, not interleaved.
  const mechint::System slow = mechint::System::open("kepler");
  const pid_t pid = fork();
  if (pid == 0) {
    try {
      slow.run({.h = 0.0005, .t_end = 3000.0, .output_every = 0.01, .checkpoint = ck, .checkpoint_every = 1.0});
    } catch (...) {
    }
    _exit(0);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  bool exited = false;
  while (!fs::exists(ck) && !(exited = waitpid(pid, &status, WNOHANG) == pid))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_FALSE(exited) << "the run ended before its first checkpoint";
  refused(kepler, {.h = 0.0005, .t_end = 3000.0, .output_every = 0.01, .resume = ck}, "in use by another");
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

}  // namespace
