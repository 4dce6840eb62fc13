// Checkpoint and resume (app/checkpoint.hpp, docs/trustworthy-runs.md): a run killed at a random
// moment and resumed from its checkpoint writes the same CSV, byte for byte, as the run never
// interrupted — for a variational integrator, the energy–momentum integrator, the impact driver and
// the Runge–Kutta methods; what cannot be resumed is refused with exit 2 and one line.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.hpp"
#include "mechint/core/state_archive.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using mechint::testing::CliResult;
using mechint::testing::read_file;
using mechint::testing::run_mechint;

/// A fresh directory for one test.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_checkpoint_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Starts `mechint <args>` (output discarded) and returns its pid.
pid_t spawn_mechint(const std::string& args, const std::string& err = "/dev/null") {
  const std::string command = "exec " + std::string(MECHINT_EXECUTABLE) + " " + args + " >/dev/null 2>" + err;
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
  return pid;
}

/// Runs `run` once uninterrupted, then with `--checkpoint`, killed (SIGKILL) at a random moment
/// after its first checkpoint, resumed — and, when the resumed run is long enough, killed and
/// resumed once more — and compares the two CSV files byte for byte.
void expect_resume_identical(const std::string& name, const std::string& run, double checkpoint_every) {
  const fs::path dir = scratch(name);
  const std::string reference = (dir / "reference.csv").string(), out = (dir / "out.csv").string();
  const std::string checkpoint = (dir / "run.checkpoint").string();

  const CliResult r = run_mechint(run + " --out " + reference);
  ASSERT_EQ(r.status, 0) << r.err;

  const std::string checkpointed = run + " --out " + out + " --checkpoint-every " + std::to_string(checkpoint_every);
  std::mt19937 random(std::random_device{}());
  int kills = 0;
  bool finished = false;
  std::string resume_flag = " --checkpoint " + checkpoint;
  // Each attempt is killed (SIGKILL) after a random number, 1 to 3, of checkpoints it wrote: a
  // moment inside the run whatever the speed or load of the machine (every run here writes about
  // 20). The checkpoint is replaced by a rename at each save: a new modification time.
  auto written_at = [&checkpoint] {
    struct stat info {};
    return ::stat(checkpoint.c_str(), &info) == 0 ? info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec : -1LL;
  };
  for (int attempt = 0; attempt < 30 && !finished; ++attempt) {
    long long last = written_at();
    const std::string err = (dir / ("attempt-" + std::to_string(attempt) + ".err")).string();
    const pid_t pid = spawn_mechint(checkpointed + resume_flag, err);
    ASSERT_GT(pid, 0);
    const int wanted = std::uniform_int_distribution<int>(1, 3)(random);
    int seen = 0, status = 0;
    bool exited = false;
    while (seen < wanted) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      if (const long long now = written_at(); now != last && now >= 0) {
        last = now;
        ++seen;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (exited) {
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "the checkpointed run failed (attempt " << attempt << ", " << kills << " kills): " << read_file(err);
      finished = true;
      break;
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {  // it ended before the signal arrived
      ASSERT_EQ(WEXITSTATUS(status), 0);
      finished = true;
      break;
    }
    ++kills;
    resume_flag = " --resume " + checkpoint;
  }
  ASSERT_TRUE(finished || fs::exists(checkpoint)) << "no checkpoint was written before the kills";
  if (!finished) {
    const CliResult resumed = run_mechint(checkpointed + " --resume " + checkpoint);
    ASSERT_EQ(resumed.status, 0) << resumed.err;
  }
  EXPECT_GE(kills, 1) << "the run was never interrupted: lengthen it";
  EXPECT_EQ(read_file(out), read_file(reference)) << name << ": resumed output differs (" << kills << " kills)";
  EXPECT_FALSE(fs::exists(checkpoint)) << "a completed run removes its checkpoint";
  EXPECT_FALSE(fs::exists(checkpoint + ".rows"));
  fs::remove_all(dir);
}

TEST(Checkpoint, VariationalIntegratorResumesByteIdentical) {
  expect_resume_identical("vi", "run pendulum-chain --set links=6 --set th1=1 --h 0.001 --t-end 60 --output-every 0.01", 3);
}

TEST(Checkpoint, SimplifiedNewtonResumesByteIdentical) {
  // The kept factorization is part of the state: without it the resumed iterates differ in the last bits.
  expect_resume_identical("simplified",
                          "run three-body --set newton=simplified --h 0.001 --t-end 400 --output-every 0.01", 20);
}

TEST(Checkpoint, EnergyMomentumResumesByteIdentical) {
  expect_resume_identical("em", "run double-spherical-pendulum --method energy-momentum --h 0.0005 --t-end 60 "
                                "--output-every 0.005", 3);
}

TEST(Checkpoint, ImpactDriverResumesByteIdentical) {
  // The MHC law's window of H̃ values is part of the state.
  expect_resume_identical("impact", "run double-pendulum --set wall=1 --set impact=mhc --h 0.0005 --t-end 100 "
                                    "--output-every 0.01", 5);
}

TEST(Checkpoint, ImpactDriverOnKernelsResumesByteIdentical) {
  // A model file's walls run the kernel driver (kernel/kernel_impact_driver.hpp): the same state.
  ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1);
  const std::string file = std::string(MECHINT_SOURCE_DIR) + "/examples/models/double-pendulum-wall.toml";
  expect_resume_identical("impact-kernels", "run " + file + " --set impact=mhc --h 0.001 --t-end 100 --output-every 0.01",
                          5);
}

TEST(Checkpoint, RungeKuttaResumesByteIdentical) {
  expect_resume_identical("rk4", "run kepler --method rk4 --h 0.0002 --t-end 300 --output-every 0.01", 15);
  expect_resume_identical("rk78", "run three-body --method rk78 --set rtol=1e-13 --set atol=1e-15 --h 0.01 "
                                  "--t-end 600 --output-every 0.01", 30);
  // The carried deviation (part of rk78's state) and the indicators' sums.
  expect_resume_identical("rk78-indicators", "run kepler --method rk78 --set indicators=on --set rtol=1e-12 "
                                             "--h 0.01 --t-end 300 --output-every 0.01", 15);
  // dopri5 with indicators steps without its dense output: its state is all it keeps.
  expect_resume_identical("dopri5-indicators", "run kepler --method dopri5 --set indicators=on --set rtol=1e-12 "
                                               "--h 0.01 --t-end 300 --output-every 0.01", 15);
}

TEST(Checkpoint, GalerkinRulesResumeByteIdentical) {
  // The stage velocities (the next step's predictor), the multipliers and the energy balance are state.
  expect_resume_identical("gauss6", "run kepler --method vi-gauss6 --h 0.001 --t-end 300 --output-every 0.01", 15);
  expect_resume_identical("lobatto4", "run spherical-pendulum --method vi-lobatto4 --h 0.0005 --t-end 100 "
                                      "--output-every 0.01", 5);
  expect_resume_identical("kahan-li6", "run three-body --set compose=kahan-li6 --h 0.002 --t-end 400 "
                                       "--output-every 0.01", 20);
  // The carried deviation and the indicators' sums are state too.
  expect_resume_identical("indicators", "run kepler --method vi-gauss4 --set indicators=on --h 0.001 --t-end 300 "
                                        "--output-every 0.01", 15);
}

TEST(Checkpoint, AdaptiveStepsResumeByteIdentical) {
  // adapt=sundman: the trajectory, its previous node (the next row's adjusted step starts there), the
  // row shown and the energy level E0 are state; adapt=energy: E_d, the last step size, the fallbacks.
  expect_resume_identical("sundman", "run kepler --method vi-gauss4 --set adapt=sundman --set x=0.2 "
                                     "--set vy=3 --h 0.001 --t-end 300 --output-every 0.01", 15);
  expect_resume_identical("energy", "run kepler --set adapt=energy --h 0.0005 --t-end 300 --output-every 0.01", 15);
}

TEST(Checkpoint, ForcedRunWithAControlScheduleResumesByteIdentical) {
  // A cart pushed back and forth by a schedule read from a file: the checkpoint records the file's
  // digest and the resumed run samples the same schedule from where it stopped.
  const fs::path dir = scratch("forced-controls");
  const fs::path pushes = dir / "pushes.csv";
  {
    std::ofstream csv(pushes);
    csv << "t,u1\n";
    for (int k = 0; k < 200; ++k) csv << 0.5 * k << "," << (k % 2 ? -1.0 : 1.0) * (0.5 + 0.01 * k) << "\n";
  }
  expect_resume_identical("forced", "run cart-pole --controls " + pushes.string() +
                                        " --h 0.0001 --t-end 100 --output-every 0.01", 5);
  fs::remove_all(dir);
}

void expect_refused(const CliResult& r, const std::string& fragment) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(mechint::testing::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

/// Writes `text` to `path`.
void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// Starts a checkpointed run (a checkpoint every time unit) and kills it (SIGKILL) once its first
/// checkpoint is there: it waits for that event, or for the run's own end, however long either takes.
void run_until_first_checkpoint(const std::string& run, const std::string& checkpoint) {
  const pid_t pid = spawn_mechint(run + " --checkpoint " + checkpoint + " --checkpoint-every 1");
  ASSERT_GT(pid, 0);
  int status = 0;
  bool exited = false;
  while (!fs::exists(checkpoint) && !(exited = waitpid(pid, &status, WNOHANG) == pid))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_FALSE(exited) << "the run ended before its first checkpoint: lengthen it";
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  ASSERT_TRUE(fs::exists(checkpoint) && fs::exists(checkpoint + ".rows"));
}

/// A checkpoint resumes only the run that wrote it, in the version that wrote it, intact.
TEST(Checkpoint, ResumeRefusesAnotherRunVersionOrDamagedFile) {
  const fs::path dir = scratch("refusals");
  const std::string out = (dir / "out.csv").string(), checkpoint = (dir / "run.checkpoint").string();
  const std::string run = "run kepler --h 0.001 --t-end 200 --output-every 0.01 --out " + out;
  // Killed after its first checkpoint (every 1 time unit of a 200-unit run).
  run_until_first_checkpoint(run, checkpoint);
  const std::string saved = read_file(checkpoint);

  expect_refused(run_mechint(run + " --set mu=2 --resume " + checkpoint), "another run");
  expect_refused(run_mechint("run kepler --method vi-trapezoid --h 0.001 --t-end 200 --output-every 0.01 --out " +
                             out + " --resume " + checkpoint),
                 "method=vi-midpoint");
  expect_refused(run_mechint("run harmonic-oscillator --h 0.001 --t-end 200 --output-every 0.01 --out " + out +
                             " --resume " + checkpoint),
                 "system=kepler");
  {
    std::string other = saved;
    other.replace(other.find("version "), std::string("version ").size(), "version 9");
    std::ofstream(checkpoint, std::ios::binary) << other;
    expect_refused(run_mechint(run + " --resume " + checkpoint), "resumes only in the version that wrote it");
  }
  {
    std::string damaged = saved;
    damaged[damaged.size() / 2] ^= 0x20;
    std::ofstream(checkpoint, std::ios::binary) << damaged;
    expect_refused(run_mechint(run + " --resume " + checkpoint), "not a mechint checkpoint");
    std::ofstream(checkpoint, std::ios::binary) << saved.substr(0, saved.size() / 3);
    expect_refused(run_mechint(run + " --resume " + checkpoint), "not a mechint checkpoint");
  }
  expect_refused(run_mechint(run + " --resume " + (dir / "missing").string()), "cannot read");
  // The intact checkpoint still resumes after all these refusals, and completes.
  std::ofstream(checkpoint, std::ios::binary) << saved;
  const CliResult resumed = run_mechint(run + " --resume " + checkpoint);
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  const CliResult reference = run_mechint("run kepler --h 0.001 --t-end 200 --output-every 0.01");
  EXPECT_EQ(read_file(out), reference.out);
  fs::remove_all(dir);
}

// A completing run writes CHECKPOINT.rows.done, renames its rows onto --out, then removes the
// checkpoint and the marker (app/checkpoint_completion.hpp). A kill between any two of these is
// recognised by --resume; the states such a kill leaves are made here by hand.
TEST(Checkpoint, AKillWhileCompletingIsRecognisedOnResume) {
  const fs::path dir = scratch("completing");
  const std::string out = (dir / "out.csv").string(), checkpoint = (dir / "run.checkpoint").string();
  const std::string marker = checkpoint + ".rows.done";
  const std::string run = "run kepler --h 0.001 --t-end 50 --output-every 0.01 --out " + out;
  const std::string reference = run_mechint("run kepler --h 0.001 --t-end 50 --output-every 0.01").out;

  // Killed after the marker, before the rename: the rows are still there, the run resumes as usual.
  run_until_first_checkpoint(run, checkpoint);
  write_file(marker, out);
  const CliResult resumed = run_mechint(run + " --resume " + checkpoint);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(read_file(out), reference);
  for (const std::string& left : {checkpoint, checkpoint + ".rows", marker}) EXPECT_FALSE(fs::exists(left)) << left;

  // Killed after the rename, before the checkpoint's removal: nothing to do but clean up (exit 0).
  fs::remove(out);
  run_until_first_checkpoint(run, checkpoint);
  fs::rename(checkpoint + ".rows", out);
  const std::string renamed = read_file(out);
  write_file(marker, out);
  const CliResult completed = run_mechint(run + " --resume " + checkpoint);
  EXPECT_EQ(completed.status, 0) << completed.err;
  EXPECT_NE(completed.err.find("had completed"), std::string::npos) << completed.err;
  EXPECT_EQ(read_file(out), renamed);
  EXPECT_FALSE(fs::exists(checkpoint));
  EXPECT_FALSE(fs::exists(marker));

  // The same, but the run completed into another file than this --out: refused, nothing removed.
  run_until_first_checkpoint(run, checkpoint);
  const std::string other = (dir / "other.csv").string();
  fs::rename(checkpoint + ".rows", other);
  write_file(marker, other);
  expect_refused(run_mechint(run + " --resume " + checkpoint), "completed into");
  EXPECT_TRUE(fs::exists(checkpoint) && fs::exists(marker));
  fs::remove_all(dir);
}

TEST(Checkpoint, RefusesWhatCannotBeResumed) {
  const fs::path dir = scratch("cannot");
  const std::string ck = " --checkpoint " + (dir / "c").string();
  const std::string out = " --out " + (dir / "out.csv").string();
  expect_refused(run_mechint("run kepler --method dopri5 --t-end 1" + out + ck), "not available for method 'dopri5'");
  expect_refused(run_mechint("run spherical-pendulum --method dae --t-end 1" + out + ck), "not available for method 'dae'");
  expect_refused(run_mechint("run kepler --t-end 1" + ck), "regular file");
  expect_refused(run_mechint("run kepler --t-end 1 --out /dev/null" + ck), "regular file");
  expect_refused(run_mechint("run kepler --t-end 1 --checkpoint-every 0.1" + out), "needs --checkpoint");
  expect_refused(run_mechint("run kepler --t-end 1 --checkpoint-every 0" + out + ck), "positive");
  expect_refused(run_mechint("run kepler --t-end 1" + out + ck + " --resume " + (dir / "d").string()), "different files");
  // Nothing is left behind by a refused run.
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(Checkpoint, CompletedRunEqualsRunWithoutCheckpoint) {
  const fs::path dir = scratch("complete");
  const std::string out = (dir / "out.csv").string(), ck = (dir / "c").string();
  const CliResult r = run_mechint("run spherical-pendulum --h 0.01 --t-end 5 --out " + out + " --checkpoint " + ck +
                                  " --checkpoint-every 0.5");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(out), run_mechint("run spherical-pendulum --h 0.01 --t-end 5").out);
  EXPECT_FALSE(fs::exists(ck));
  EXPECT_FALSE(fs::exists(ck + ".rows"));
  fs::remove_all(dir);
}

TEST(StateArchive, RoundTripIsBitExactAndRefusesOtherBytes) {
  Eigen::Matrix<double, 3, 2> m;
  m << 0.1, -2.5e-300, 1.0 / 3.0, 4e300, -0.0, 7;
  std::vector<double> history = {1.5, std::nextafter(1.0, 2.0)};
  long step = 123456789012L;
  bool flag = true;
  mechint::StateWriter w;
  w(m), w(history), w(step), w(flag);

  Eigen::Matrix<double, 3, 2> m2;
  std::vector<double> history2;
  long step2 = 0;
  bool flag2 = false;
  mechint::StateReader r(w.bytes());
  r(m2), r(history2), r(step2), r(flag2);
  r.finish();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(std::memcmp(&m(i), &m2(i), sizeof(double)), 0);
  EXPECT_EQ(history2, history);
  EXPECT_EQ(step2, step);
  EXPECT_EQ(flag2, flag);

  mechint::StateReader short_reader(w.bytes().substr(0, 20));
  EXPECT_THROW((short_reader(m2), short_reader(history2)), mechint::InvalidInput);
  mechint::StateReader long_reader(w.bytes() + "x");
  long_reader(m2), long_reader(history2), long_reader(step2), long_reader(flag2);
  EXPECT_THROW(long_reader.finish(), mechint::InvalidInput);
}

}  // namespace
