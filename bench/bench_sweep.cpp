// Members per second of a sweep (app/sweep.hpp) on 1 and 2 threads, in this process: 64 Kepler
// members of 1000 steps of vi-gauss4 with the chaos indicators on (about 1.5 ms each), the sweep's
// directory, journal and summary included. The ratio of the two rows is the threads' speed-up
// (docs/performance.md; MPI ranks are timed as commands, farm-bench, docs/sweeps.md).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <sstream>
#include <string>

#include <unistd.h>

#include "app/sweep.hpp"

namespace {

constexpr int kMembers = 64;

const std::string kSweep = R"(system = "kepler"
method = "vi-gauss4"
h = 0.01
t_end = 10.0
[set]
indicators = "on"
[vary]
vy = { from = 0.8, to = 1.2, count = 64 }
[sweep]
record = ["megno", "lyapunov", "steps"]
)";

void BM_SweepThreads(benchmark::State& state) {
  namespace fs = std::filesystem;
  const unsigned threads = static_cast<unsigned>(state.range(0));
  const fs::path dir = fs::temp_directory_path() / ("mechint-bench-sweep-" + std::to_string(::getpid()));
  long members = 0;
  for (auto _ : state) {
    fs::remove_all(dir);
    std::ostringstream err;
    mechint::app::sweep_text(kSweep, "bench", dir.string(), threads, false, err);
    members += kMembers;
  }
  fs::remove_all(dir);
  state.counters["members_per_s"] = benchmark::Counter(static_cast<double>(members), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepThreads)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
