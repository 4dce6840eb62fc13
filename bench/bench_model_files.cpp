// Step cost of a model file's generated model against the built-in system it is cross-checked with
// (tests/test_model_files.cpp): the same method, the same h, the same start, the same path through
// the command line's run (app::run_system: the method table's stepper, the one run loop, the step
// check at its default), rows discarded. The generated model is compiled by the model compiler
// exactly as `mechint run FILE.toml` compiles it (cached; a first run of this program compiles each
// file once, outside the timed loop) and loaded with dlopen.
//
// Counter ns_per_step: wall time of a run divided by its number of steps. docs/performance.md
// ("Model files") has the table; the target is generated <= 1.3x built-in.
#include <benchmark/benchmark.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/run_system.hpp"
#include "app/system_entry.hpp"
#include "model_file/chain_model_text.hpp"
#include "model_file/model_file_system.hpp"

namespace {

using namespace mechint;

/// Discards every row: the bench measures stepping, not formatting.
class DiscardRows final : public app::RowWriter {
 public:
  void header(const std::vector<std::string>&) override {}
  void row(const std::vector<double>& values) override { benchmark::DoNotOptimize(values.data()); }
};

/// One side of a comparison: a system (built-in name or model file), its --set values and method.
struct Side {
  std::string system;
  app::Overrides overrides;
  std::string method;
};

std::string example(const std::string& file) { return std::string(MECHINT_SOURCE_DIR) + "/examples/models/" + file; }

void run_side(benchmark::State& state, const Side& side, double h, double t_end) {
  const bool from_file = model_file::is_model_file_name(side.system);
  const app::SystemEntry entry = from_file ? model_file::model_file_system(side.system) : app::find_system(side.system);
  OutputSchedule schedule;
  schedule.h = h;
  schedule.t_end = t_end;
  schedule.output_every = t_end;  // two rows per run
  schedule.validate();
  DiscardRows rows;
  app::run_system(entry, side.method, side.overrides, schedule, rows);  // compiles and loads a model file once
  const double steps_per_run = std::round(t_end / h);
  for (auto _ : state) app::run_system(entry, side.method, side.overrides, schedule, rows);
  state.counters["ns_per_step"] = benchmark::Counter(steps_per_run * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                                                              benchmark::Counter::kInvert);
}

// 004 §IV-A: the double pendulum with its wall, impact driver (trapezoid flow), 20 s at h = 0.01.
void BM_DoublePendulumWall(benchmark::State& state, const std::string& law, bool from_file) {
  const Side side = from_file ? Side{example("double-pendulum-wall.toml"), {{"impact", law}}, "vi-trapezoid"}
                              : Side{"double-pendulum", {{"wall", "1"}, {"impact", law}}, "vi-trapezoid"};
  run_side(state, side, 0.01, 20.0);
}
BENCHMARK_CAPTURE(BM_DoublePendulumWall, mhc_builtin, "mhc", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DoublePendulumWall, mhc_model_file, "mhc", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DoublePendulumWall, ctec_builtin, "ctec", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DoublePendulumWall, ctec_model_file, "ctec", true)->Unit(benchmark::kMillisecond);

// The spherical pendulum in Cartesian coordinates with |q| = l, 100 s at h = 0.01.
void BM_SphericalPendulum(benchmark::State& state, const std::string& method, bool from_file) {
  const Side side = from_file ? Side{example("spherical-pendulum.toml"), {}, method}
                              : Side{"spherical-pendulum", {}, method};
  run_side(state, side, 0.01, 100.0);
}
BENCHMARK_CAPTURE(BM_SphericalPendulum, midpoint_builtin, "vi-midpoint", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SphericalPendulum, midpoint_model_file, "vi-midpoint", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SphericalPendulum, trapezoid_builtin, "vi-trapezoid", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SphericalPendulum, trapezoid_model_file, "vi-trapezoid", true)->Unit(benchmark::kMillisecond);

// The Kepler problem: examples/models/eccentric-orbit.toml (a declared domain, compiled) from the
// built-in's start (a = 1, e = 0.5, at the pericentre) against the built-in `kepler`, whose AD
// kernels solve their own steps (model_kernels.h, discrete_step); vi-midpoint, h = 0.01, 100 s.
void BM_KeplerOrbit(benchmark::State& state, bool from_file) {
  const Side side = from_file ? Side{example("eccentric-orbit.toml"), {{"x", "0.5"}, {"y_dot", "1.7320508075688772"}},
                                     "vi-midpoint"}
                              : Side{"kepler", {}, "vi-midpoint"};
  run_side(state, side, 0.01, 100.0);
}
BENCHMARK_CAPTURE(BM_KeplerOrbit, builtin, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_KeplerOrbit, model_file, true)->Unit(benchmark::kMillisecond);

// The pendulum chain written as a model file (absolute angles, definitions: model_file/chain_model_text.hpp)
// against the built-in chain on its hand-derived kernels, the same motion (first link at π/4, the
// others hanging down, at rest), vi-midpoint at h = 0.01 for 2 s. Issue "Compile once": the model
// file within 2x of the built-in at 10, 20 and 30 links, growing no faster than n^2.2.
std::string chain_model_file(int links) {
  // A private directory (mkdtemp), not a fixed name in /tmp another user could have planted; removed
  // when the program ends.
  struct PrivateDirectory {
    std::filesystem::path path;
    PrivateDirectory() {
      std::string pattern = (std::filesystem::temp_directory_path() / "mechint-bench-chains-XXXXXX").string();
      if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary directory");
      path = pattern;
    }
    ~PrivateDirectory() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const PrivateDirectory dir;
  const std::filesystem::path file = dir.path / ("chain-" + std::to_string(links) + ".toml");
  std::ofstream(file) << model_file::pendulum_chain_model_text(links);
  return file.string();
}

void BM_ChainModelFile(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  run_side(state, Side{chain_model_file(links), {}, "vi-midpoint"}, 0.01, 2.0);
}
void BM_ChainBuiltin(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  const app::Overrides start = {{"links", std::to_string(links)}, {"th1", "0.7853981633974483"},
                                {"th2", "-0.7853981633974483"}};
  run_side(state, Side{"pendulum-chain", start, "vi-midpoint"}, 0.01, 2.0);
}
BENCHMARK(BM_ChainModelFile)->ArgName("links")->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChainBuiltin)->ArgName("links")->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// Model files of any size (docs/performance.md, "Model files of any size"): the chain written as users
// write it — in joint angles (relative, the built-in's own coordinates), in absolute angles, and in
// Cartesian coordinates with one length constraint per link (a DAE) — at 10, 30 and 100 links, against
// the built-in `pendulum-chain` from its default start. Cold compile: the model compiled into an empty
// cache each iteration (wall time, the compiler included); step: vi-midpoint at h = 0.01 for 1 s.
enum class ChainForm { kRelative, kAbsolute, kCartesian };

std::string chain_text(ChainForm form, int links) {
  switch (form) {
    case ChainForm::kRelative: return model_file::relative_chain_model_text(links);
    case ChainForm::kAbsolute: return model_file::pendulum_chain_model_text(links);
    case ChainForm::kCartesian: return model_file::cartesian_chain_model_text(links);
  }
  return "";
}

std::string chain_file(ChainForm form, int links) {
  const std::string path = chain_model_file(links);  // the private directory of the chains above
  const std::string file = path.substr(0, path.rfind('/')) + "/form-" + std::to_string(static_cast<int>(form)) +
                           "-" + std::to_string(links) + ".toml";
  std::ofstream(file) << chain_text(form, links);
  return file;
}

void BM_ChainFormStep(benchmark::State& state, ChainForm form) {
  const int links = static_cast<int>(state.range(0));
  run_side(state, Side{chain_file(form, links), {}, "vi-midpoint"}, 0.01, 1.0);
}
void BM_ChainBuiltinDefaultStart(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  run_side(state, Side{"pendulum-chain", {{"links", std::to_string(links)}}, "vi-midpoint"}, 0.01, 1.0);
}
BENCHMARK_CAPTURE(BM_ChainFormStep, relative, ChainForm::kRelative)
    ->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChainFormStep, absolute, ChainForm::kAbsolute)
    ->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChainFormStep, cartesian, ChainForm::kCartesian)
    ->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChainBuiltinDefaultStart)->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond);

/// A model file compiled from nothing: a new empty cache for every iteration (MECHINT_CACHE_DIR),
/// the model read, its kernels generated and compiled, loaded, and one step taken.
void BM_ChainColdCompile(benchmark::State& state, ChainForm form) {
  const int links = static_cast<int>(state.range(0));
  const std::string file = chain_file(form, links);
  const std::string directory = file.substr(0, file.rfind('/'));
  OutputSchedule schedule;
  schedule.h = 0.01;
  schedule.t_end = 0.01;
  schedule.output_every = 0.01;
  schedule.validate();
  DiscardRows rows;
  int iteration = 0;
  for (auto _ : state) {
    const std::string cache = directory + "/cache-" + std::to_string(static_cast<int>(form)) + "-" +
                              std::to_string(links) + "-" + std::to_string(iteration++);
    std::filesystem::create_directory(cache);
    std::filesystem::permissions(cache, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
    ::setenv("MECHINT_CACHE_DIR", cache.c_str(), 1);
    const app::SystemEntry entry = model_file::model_file_system(file);
    app::run_system(entry, "vi-midpoint", {}, schedule, rows);
  }
  ::unsetenv("MECHINT_CACHE_DIR");
}
BENCHMARK_CAPTURE(BM_ChainColdCompile, relative, ChainForm::kRelative)
    ->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Iterations(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChainColdCompile, absolute, ChainForm::kAbsolute)
    ->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Iterations(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChainColdCompile, cartesian, ChainForm::kCartesian)
    ->ArgName("links")->Arg(10)->Arg(30)->Arg(100)->Iterations(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
