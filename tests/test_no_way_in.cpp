// No way in (docs/security.md): no file name a user gives reaches a shell; the model cache loads
// only what this user compiled into a directory no one else can write; a checkpoint never replaces a
// device, a FIFO or the output; closed pipes and a missing compiler end with one line and exit 4.
// Each reproducer of the issue that found these is a case here. Where a case could damage the
// machine if mechint were wrong (--checkpoint /dev/null), it runs as an ordinary user ("nobody").
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app/child_process.hpp"
#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"
#include "model_file/model_compiler.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::CliResult;
using mechint::testing::LaunchOptions;
using mechint::testing::count_lines;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

/// A fresh directory for one test, readable by everyone (an ordinary user runs in some of them).
fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / ("no_way_in_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::all);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

/// Names a careless or malicious user might give: shell syntax of every kind, a newline, a leading dash.
const std::vector<std::string> kHostileNames = {
    "o'$(touch INJECTED1)'x", "o\"$(touch INJECTED2)\"x", "a;touch INJECTED3;b", "`touch INJECTED4`",
    "x\ntouch INJECTED5", "$(touch${IFS}INJECTED6)", "a|touch INJECTED7", "x -rf * && touch INJECTED8",
};

int injected_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.path().filename().string().rfind("INJECTED", 0) == 0;
  return n;
}

void expect_one_line_error(const CliResult& r, int status, const std::string& mentions) {
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

LaunchOptions in(const fs::path& dir, std::vector<std::string> environment = {}) {
  LaunchOptions o;
  o.working_directory = dir.string();
  o.environment = std::move(environment);
  o.environment.push_back("MECHINT_PLOTS_DIR=" MECHINT_SOURCE_DIR "/scripts/plots");
  return o;
}

bool matplotlib_available() {
  return mechint::app::run_program({"/usr/bin/python3", "-I", "-c", "import matplotlib"},
                                   mechint::app::ChildOutput::discard())
      .succeeded();
}

// --- No shell ---------------------------------------------------------------------------------

TEST(NoShell, OptimizeOutDirectoryNamesRunNothing) {
  // The issue's reproducer: the plotter was started by std::system with the directory in quotes.
  const fs::path dir = scratch("optimize");
  const fs::path problem = dir / "swing.toml";
  write(problem, "model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 30\n[parameters]\nc = 0.0\n"
                 "[start]\nth = 0.0\nth_dot = 0.0\n[goal]\nth = 3.141592653589793\nth_dot = 0.0\n");
  for (const std::string& name : {kHostileNames[0], kHostileNames[1], kHostileNames[2], kHostileNames[4]}) {
    const CliResult r = run_mechint_argv({"optimize", problem.string(), "--out", name}, in(dir));
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_TRUE(fs::is_regular_file(dir / name / "results.json")) << name;
    if (matplotlib_available()) {
      EXPECT_TRUE(fs::is_regular_file(dir / name / "trajectory.png")) << name << r.err;
    }
  }
  EXPECT_EQ(injected_files(dir), 0);
}

TEST(NoShell, ReproduceOutDirectoryNamesRunNothing) {
  const fs::path dir = scratch("reproduce");
  for (const std::string& name : {kHostileNames[0], kHostileNames[5]}) {
    const CliResult r = run_mechint_argv({"reproduce", "core-convergence", "--out", name}, in(dir));
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    if (matplotlib_available()) {
      EXPECT_TRUE(fs::is_regular_file(dir / name / "convergence.png")) << name << r.err;
    }
  }
  EXPECT_EQ(injected_files(dir), 0);
}

TEST(NoShell, RunFileNamesAreOnlyFileNames) {
  const fs::path dir = scratch("run");
  write(dir / "c.csv", "t,u1\n0,0.5\n");
  for (const auto& name : kHostileNames) {
    const CliResult r = run_mechint_argv({"run", "kepler", "--t-end", "0.5", "--out", name + ".csv"}, in(dir));
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_TRUE(fs::is_regular_file(dir / (name + ".csv"))) << name;
  }
  // The same names as a checkpoint, a controls file and a model file (refused as missing, never run).
  const CliResult checkpointed =
      run_mechint_argv({"run", "kepler", "--t-end", "0.5", "--out", "k.csv", "--checkpoint", kHostileNames[0]}, in(dir));
  EXPECT_EQ(checkpointed.status, 0) << checkpointed.err;
  for (const auto& name : kHostileNames) {
    expect_one_line_error(run_mechint_argv({"run", "cart-pole", "--controls", name}, in(dir)), 2, "controls file");
    expect_one_line_error(run_mechint_argv({"check", name + ".toml"}, in(dir)), 2, "");
    expect_one_line_error(run_mechint_argv({"run", name + ".toml"}, in(dir)), 2, "");
  }
  EXPECT_EQ(injected_files(dir), 0);
}

TEST(NoShell, ChildProcessTakesItsArgumentsVerbatim) {
  const fs::path dir = scratch("child");
  const std::string name = (dir / "o'$(touch INJECTED)'x").string();
  const auto made = mechint::app::run_program({"touch", name}, mechint::app::ChildOutput::discard());
  EXPECT_TRUE(made.succeeded());
  EXPECT_TRUE(fs::exists(name));
  EXPECT_EQ(injected_files(dir), 0);
  const auto missing = mechint::app::run_program({"no-such-program-anywhere"}, mechint::app::ChildOutput::discard());
  EXPECT_FALSE(missing.started);
  EXPECT_EQ(missing.error, ENOENT);
  const auto failed = mechint::app::run_program({"false"}, mechint::app::ChildOutput::discard());
  EXPECT_TRUE(failed.started);
  EXPECT_EQ(failed.exit_status, 1);
}

// --- The model cache ----------------------------------------------------------------------------

/// A toolchain that builds a one-function library in well under a second.
mechint::model_file::Toolchain tiny_toolchain() {
  mechint::model_file::Toolchain t;
  t.compiler = mechint::app::find_program("c++");
  t.flags = {"-shared", "-fPIC", "-O0"};
  return t;
}

const std::string kTinySource = "extern \"C\" int mechint_test_answer() { return 42; }\n";

int answer_of(const mechint::model_file::CachedLibrary& library) {
  const std::string path = "/proc/self/fd/" + std::to_string(library.fd);
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return -1;
  auto* f = reinterpret_cast<int (*)()>(::dlsym(handle, "mechint_test_answer"));
  return f ? f() : -1;
}

TEST(ModelCache, CompilesIntoAPrivateDirectoryAndLoadsFromIt) {
  const fs::path dir = scratch("cache_ok") / "new" / "models";
  const mechint::model_file::ModelCache cache(dir);
  EXPECT_EQ(fs::status(dir).permissions() & fs::perms::all, fs::perms::owner_all);  // created 0700
  // A compile that succeeded says so in one line; a library from the cache says nothing.
  ::testing::internal::CaptureStderr();
  const auto library = mechint::model_file::compiled_library(cache, kTinySource, "k1", tiny_toolchain(), "model 'tiny'");
  const std::string announced = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(announced.rfind("mechint: compiled model 'tiny' in ", 0), 0u) << announced;
  EXPECT_EQ(std::count(announced.begin(), announced.end(), '\n'), 1) << announced;
  EXPECT_EQ(answer_of(library), 42);
  // The second time from the cache, and nothing of the build is left.
  ::testing::internal::CaptureStderr();
  const auto again = mechint::model_file::compiled_library(cache, kTinySource, "k1", tiny_toolchain(), "model 'tiny'");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ::close(again.fd);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_NE(e.path().filename().string().rfind(".build-", 0), 0u) << e.path();
}

TEST(ModelCache, GeneratesTheSourceOnlyWhenTheCacheHasNoLibrary) {
  const mechint::model_file::ModelCache cache(scratch("cache_lazy") / "models");
  int generated = 0;
  const auto source = [&] {
    ++generated;
    return std::string(kTinySource);
  };
  ::testing::internal::CaptureStderr();
  const auto first = mechint::model_file::compiled_library(cache, source, "k6", tiny_toolchain(), "model 'tiny'");
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(generated, 1);
  EXPECT_EQ(answer_of(first), 42);
  const auto again = mechint::model_file::compiled_library(cache, source, "k6", tiny_toolchain(), "model 'tiny'");
  EXPECT_EQ(generated, 1) << "a cached library was taken after generating its source again";
  ::close(again.fd);
}

TEST(ModelCache, TheGeneratorIsIdentifiedByItsBinarysBuildId) {
  // A model's cache key names its generator by the build ID of the binary that holds it (Debian's
  // linker writes one; without it the key falls back to the generated source). Hex, the same at
  // every call, and different keys for different generators.
  const std::string id = mechint::model_file::generator_identity();
  ASSERT_FALSE(id.empty()) << "this binary has no GNU build ID";
  EXPECT_GE(id.size(), 16u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_EQ(mechint::model_file::generator_identity(), id);
  const auto toolchain = tiny_toolchain();
  EXPECT_NE(mechint::model_file::cache_key("generator " + id, "text", toolchain),
            mechint::model_file::cache_key("generator 0" + id, "text", toolchain));
  EXPECT_NE(mechint::model_file::cache_key("generator " + id, "text", toolchain),
            mechint::model_file::cache_key("generator " + id, "text ", toolchain));
}

TEST(ModelCache, RefusesADirectoryOthersCanWrite) {
  const fs::path dir = scratch("cache_shared");
  fs::permissions(dir, fs::perms::all);  // 0777: anyone could plant a library
  try {
    const mechint::model_file::ModelCache cache(dir);
    FAIL() << "a world-writable cache was accepted";
  } catch (const mechint::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("writable by group or others"), std::string::npos) << e.what();
  }
  // The command line says the same in one line, exit 4, before compiling anything.
  const CliResult r = run_mechint_argv({"run", MECHINT_SOURCE_DIR "/examples/models/henon-heiles.toml", "--t-end", "1"},
                                       in(dir, {"MECHINT_CACHE_DIR=" + dir.string()}));
  expect_one_line_error(r, 4, "writable by group or others");
}

TEST(ModelCache, RefusesADirectoryOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  const passwd* nobody = ::getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  // XDG_CACHE_HOME in a directory another user controls: its mechint/models planted by that user.
  const fs::path dir = scratch("cache_other");
  fs::create_directories(dir / "mechint" / "models");
  ASSERT_EQ(::chown((dir / "mechint" / "models").c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  fs::permissions(dir / "mechint" / "models", fs::perms::owner_all);
  const CliResult planted = run_mechint_argv(
      {"run", MECHINT_SOURCE_DIR "/examples/models/henon-heiles.toml", "--t-end", "1"},
      in(dir, {"XDG_CACHE_HOME=" + dir.string(), "MECHINT_CACHE_DIR="}));
  expect_one_line_error(planted, 4, "is owned by user id");
}

TEST(ModelCache, NeverLoadsAPlantedLibrary) {
  const fs::path dir = scratch("cache_planted");
  const mechint::model_file::ModelCache cache(dir / "models");
  const fs::path planted = dir / "models" / "k2.so";
  // A library writable by others (as if planted through a once-shared directory) is refused.
  write(planted, "not even a library");
  fs::permissions(planted, fs::perms::all);
  EXPECT_THROW(mechint::model_file::compiled_library(cache, kTinySource, "k2", tiny_toolchain(), "model 'tiny'"),
               mechint::IoError);
  // So is a symbolic link at the library's name.
  fs::remove(planted);
  fs::create_symlink(dir / "elsewhere.so", planted);
  EXPECT_THROW(mechint::model_file::compiled_library(cache, kTinySource, "k2", tiny_toolchain(), "model 'tiny'"),
               mechint::IoError);
  fs::remove(planted);
  if (::geteuid() == 0) {  // and a library owned by another user
    const passwd* nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    write(planted, "x");
    fs::permissions(planted, fs::perms::owner_all);
    ASSERT_EQ(::chown(planted.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
    EXPECT_THROW(mechint::model_file::compiled_library(cache, kTinySource, "k2", tiny_toolchain(), "model 'tiny'"),
                 mechint::IoError);
  }
}

TEST(ModelCache, SymlinksPlantedAtItsNamesAreReplacedNotFollowed) {
  const fs::path dir = scratch("cache_symlinks");
  const mechint::model_file::ModelCache cache(dir / "models");
  write(dir / "victim.cpp", "the victim's source\n");
  write(dir / "victim.log", "the victim's log\n");
  fs::create_symlink(dir / "victim.cpp", dir / "models" / "k3.cpp");
  fs::create_symlink(dir / "victim.log", dir / "models" / "k3.log");
  fs::create_symlink(dir / "victim.lock", dir / "models" / "k3.lock");
  EXPECT_THROW(mechint::model_file::compiled_library(cache, kTinySource, "k3", tiny_toolchain(), "model 'tiny'"),
               mechint::IoError);  // the lock is a symlink: refused, not followed
  EXPECT_FALSE(fs::exists(dir / "victim.lock"));
  fs::remove(dir / "models" / "k3.lock");
  const auto library = mechint::model_file::compiled_library(cache, kTinySource, "k3", tiny_toolchain(), "model 'tiny'");
  EXPECT_EQ(answer_of(library), 42);
  EXPECT_EQ(read_file(dir / "victim.cpp"), "the victim's source\n");
  EXPECT_EQ(read_file(dir / "victim.log"), "the victim's log\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "models" / "k3.cpp")));
  EXPECT_EQ(read_file(dir / "models" / "k3.cpp"), kTinySource);
}

TEST(ModelCache, StaleBuildsOfKilledCompilesAreRemoved) {
  const fs::path dir = scratch("cache_stale");
  const mechint::model_file::ModelCache cache(dir / "models");
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const fs::path stale = dir / "models" / (".build-" + std::to_string(dead) + "-abcdef");
  fs::create_directories(stale);
  write(stale / "model.so", "partial");
  const fs::path old_partial = dir / "models" / (".k9.so." + std::to_string(dead) + ".partial");
  write(old_partial, "partial");
  const fs::path live = dir / "models" / (".build-" + std::to_string(::getppid()) + "-abcdef");  // a live process
  fs::create_directories(live);
  const auto library = mechint::model_file::compiled_library(cache, kTinySource, "k4", tiny_toolchain(), "model 'tiny'");
  ::close(library.fd);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(old_partial));
  EXPECT_TRUE(fs::exists(live));
}

TEST(ModelCache, EnvironmentProblemsAreExitFourInOneLine) {
  const fs::path dir = scratch("toolchain");
  const std::string model = MECHINT_SOURCE_DIR "/examples/models/henon-heiles.toml";
  const std::string cache = "MECHINT_CACHE_DIR=" + (dir / "cache").string();
  write(dir / "no-compiler.json",
        R"({"compiler": "/nonexistent/bin/g++", "compiler_identity": "GNU 12", "mechint_version": "0",)"
        R"( "flags": [], "mechint_include_dirs": [], "dependency_include_dirs": []})");
  expect_one_line_error(run_mechint_argv({"run", model, "--t-end", "1"},
                                         in(dir, {cache, "MECHINT_MODEL_COMPILER=" + (dir / "no-compiler.json").string()})),
                        4, "/nonexistent/bin/g++");
  write(dir / "malformed.json", "{\"compiler\": ");
  expect_one_line_error(run_mechint_argv({"run", model, "--t-end", "1"},
                                         in(dir, {cache, "MECHINT_MODEL_COMPILER=" + (dir / "malformed.json").string()})),
                        4, "malformed compiler settings");
  expect_one_line_error(run_mechint_argv({"run", model, "--t-end", "1"},
                                         in(dir, {cache, "MECHINT_MODEL_COMPILER=" + (dir / "missing.json").string()})),
                        4, "missing.json");
}

TEST(ModelCache, ACompilerThatCannotFinishIsAnIoError) {
  // g++ without an assembler on its PATH (and none of its own): exit 4, not "internal error".
  const fs::path dir = scratch("no_assembler");
  fs::create_directories(dir / "bin");
  fs::create_symlink(mechint::app::find_program("false"), dir / "bin" / "as");  // an assembler that fails
  const mechint::model_file::ModelCache cache(dir / "models");
  auto toolchain = tiny_toolchain();
  toolchain.flags.insert(toolchain.flags.begin(), "-B" + (dir / "bin").string() + "/");
  try {
    mechint::model_file::compiled_library(cache, kTinySource, "k5", toolchain, "model 'tiny'");
    FAIL() << "compiled without an assembler";
  } catch (const mechint::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("k5.log"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "models" / "k5.so"));
}

TEST(ModelCache, SigtermDuringACompileLeavesNoCompilerAndNoLibrary) {
  const fs::path dir = scratch("sigterm");
  const fs::path cache = dir / "cache";
  // A model no cache has seen: its own text gives it its own key.
  std::string model = read_file(MECHINT_SOURCE_DIR "/examples/models/henon-heiles.toml");
  model += "\n# " + std::to_string(::getpid()) + " " +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "\n";
  write(dir / "model.toml", model);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("MECHINT_CACHE_DIR", cache.c_str(), 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(MECHINT_EXECUTABLE, MECHINT_EXECUTABLE, "run", (dir / "model.toml").c_str(), "--t-end", "1", nullptr);
    ::_exit(127);
  }
  // Wait until the compiler has been started (its log exists), then terminate mechint.
  fs::path build;
  for (int i = 0; i < 6000 && build.empty(); ++i) {
    std::error_code error;
    for (fs::directory_iterator it(cache, error), end; !error && it != end; it.increment(error))
      if (it->path().filename().string().rfind(".build-", 0) == 0 && fs::exists(it->path() / "compile.log"))
        build = it->path();
    if (build.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(build.empty()) << "the compile never started";
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 143) << status;
  // No process still compiles into the build directory (the compiler's group was killed).
  auto compilers_left = [&] {
    int n = 0;
    std::error_code error;
    for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
      const std::string cmdline = read_file(it->path() / "cmdline");
      n += cmdline.find(build.string()) != std::string::npos;
    }
    return n;
  };
  int left = compilers_left();
  for (int i = 0; i < 200 && left > 0; ++i) {  // a killed process may take a moment to be reaped
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = compilers_left();
  }
  EXPECT_EQ(left, 0);
  EXPECT_FALSE(fs::exists(build));
  for (const auto& e : fs::directory_iterator(cache)) EXPECT_NE(e.path().extension(), ".so") << e.path();
}

// --- Files: checkpoints, outputs, pipes --------------------------------------------------------

TEST(Files, CheckpointNeverReplacesAFifoADirectoryOrTheOutput) {
  const fs::path dir = scratch("checkpoint_targets");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  const std::vector<std::string> run = {"run", "kepler", "--t-end", "2", "--out", "k.csv", "--checkpoint"};
  auto with = [&](const std::string& checkpoint) {
    auto args = run;
    args.push_back(checkpoint);
    return run_mechint_argv(args, in(dir));
  };
  expect_one_line_error(with("fifo"), 2, "not a regular file");
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  fs::create_directories(dir / "sub");
  expect_one_line_error(with("sub"), 2, "not a regular file");
  EXPECT_TRUE(fs::is_directory(dir / "sub"));
  // The issue's reproducer: --out same.csv --checkpoint same.csv exited 0 and same.csv was gone.
  write(dir / "k.csv", "precious\n");
  expect_one_line_error(with("k.csv"), 2, "name the same file");
  EXPECT_EQ(read_file(dir / "k.csv"), "precious\n");
  fs::create_symlink("k.csv", dir / "link-to-k");
  expect_one_line_error(with("link-to-k"), 2, "name the same file");
  EXPECT_EQ(read_file(dir / "k.csv"), "precious\n");
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".rows"), std::string::npos) << e.path();
}

TEST(Files, CheckpointOnADeviceIsRefusedAsAnOrdinaryUser) {
  // As root a wrong mechint would replace the system's /dev/null: run it as "nobody" then.
  LaunchOptions options;
  const fs::path dir = scratch("checkpoint_device");
  options.working_directory = dir.string();
  if (::geteuid() == 0) {
    const passwd* nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    options.uid = static_cast<int>(nobody->pw_uid);
    options.gid = static_cast<int>(nobody->pw_gid);
    // The executable where that user can run it.
    fs::copy_file(MECHINT_EXECUTABLE, dir / "mechint");
    fs::permissions(dir / "mechint", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                         fs::perms::others_read | fs::perms::others_exec);
    options.executable = (dir / "mechint").string();
  }
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  const CliResult r = run_mechint_argv(
      {"run", "kepler", "--t-end", "2", "--out", (dir / "k.csv").string(), "--checkpoint", "/dev/null"}, options);
  expect_one_line_error(r, 2, "not a regular file");
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

TEST(Files, ACheckpointHeldByAnotherRunIsRefused) {
  const fs::path dir = scratch("checkpoint_lock");
  write(dir / "ck", "whatever a checkpoint holds\n");
  write(dir / "ck.rows", "t,x\n");
  const int held = ::open((dir / "ck.rows").c_str(), O_RDWR);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);  // as a running mechint holds it
  expect_one_line_error(run_mechint_argv({"run", "kepler", "--out", "k.csv", "--resume", "ck"}, in(dir)), 2,
                        "in use by another mechint run");
  expect_one_line_error(run_mechint_argv({"run", "kepler", "--out", "k.csv", "--checkpoint", "ck"}, in(dir)), 2,
                        "in use by another mechint run");
  ::close(held);
  EXPECT_EQ(read_file(dir / "ck.rows"), "t,x\n");  // neither truncated it
  // Released, the same resume is read (and refused for what the file is).
  expect_one_line_error(run_mechint_argv({"run", "kepler", "--out", "k.csv", "--resume", "ck"}, in(dir)), 2,
                        "not a mechint checkpoint");
}

TEST(Files, FilesARunReadsAreNeverWhatItWrites) {
  const fs::path dir = scratch("read_write");
  write(dir / "pushes.csv", "t,u1\n0,1.5\n");
  expect_one_line_error(run_mechint_argv({"run", "cart-pole", "--controls", "pushes.csv", "--out", "pushes.csv"}, in(dir)),
                        2, "name the same file");
  expect_one_line_error(run_mechint_argv({"run", "cart-pole", "--controls", "pushes.csv", "--out", "o.csv",
                                          "--checkpoint", "pushes.csv"},
                                         in(dir)),
                        2, "name the same file");
  EXPECT_EQ(read_file(dir / "pushes.csv"), "t,u1\n0,1.5\n");
  fs::copy_file(MECHINT_SOURCE_DIR "/examples/models/henon-heiles.toml", dir / "m.toml");
  const std::string model_text = read_file(dir / "m.toml");
  expect_one_line_error(run_mechint_argv({"run", "m.toml", "--out", "m.toml"}, in(dir)), 2, "name the same file");
  EXPECT_EQ(read_file(dir / "m.toml"), model_text);
}

TEST(Files, OutThroughADanglingSymlinkCreatesItsTarget) {
  const fs::path dir = scratch("dangling");
  fs::create_directories(dir / "results");
  fs::create_symlink("results/k.csv", dir / "k.csv");
  const CliResult r = run_mechint_argv({"run", "kepler", "--t-end", "0.5", "--out", "k.csv"}, in(dir));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "k.csv"));
  EXPECT_EQ(read_file(dir / "results" / "k.csv").rfind("t,", 0), 0u);
}

TEST(Files, AClosedStandardOutputIsExitFourWithOneLine) {
  // mechint run ... | head -1: the reader goes away after one line.
  int pipe_fds[2], err_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ASSERT_EQ(::pipe(err_fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], 1);
    ::dup2(err_fds[1], 2);
    ::close(pipe_fds[0]);
    ::close(err_fds[0]);
    ::execl(MECHINT_EXECUTABLE, MECHINT_EXECUTABLE, "run", "kepler", "--t-end", "1000", nullptr);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  ::close(err_fds[1]);
  char c = 0;
  while (::read(pipe_fds[0], &c, 1) == 1 && c != '\n') {
  }
  ::close(pipe_fds[0]);  // 10^5 rows remain: far more than a pipe holds
  std::string err;
  char buffer[256];
  for (ssize_t n; (n = ::read(err_fds[0], buffer, sizeof buffer)) > 0;) err.append(buffer, static_cast<std::size_t>(n));
  ::close(err_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find("standard output"), std::string::npos) << err;
}

}  // namespace
