// Writing the rows of a run (docs/performance.md, "Writing the rows"): one number at 17 significant
// digits by printf's "%.17g" and by app/exact_number.hpp (std::to_chars, the same text), and a
// whole 8-column CSV row through CsvOutput as `mechint run` writes it.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <vector>

#include "app/exact_number.hpp"
#include "app/output.hpp"

namespace {

/// Numbers of the size a run writes: states, energies, momenta.
std::vector<double> run_like_numbers(std::size_t count) {
  std::mt19937_64 bits(7);
  std::uniform_real_distribution<double> value(-10.0, 10.0);
  std::vector<double> x(count);
  for (double& v : x) v = value(bits);
  return x;
}

void BM_NumberBySnprintf(benchmark::State& state) {
  const std::vector<double> x = run_like_numbers(1024);
  char buffer[32];
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::snprintf(buffer, sizeof buffer, "%.17g", x[i++ & 1023]));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NumberBySnprintf);

void BM_NumberByToChars(benchmark::State& state) {
  const std::vector<double> x = run_like_numbers(1024);
  char buffer[mechint::app::kExactNumberCapacity];
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mechint::app::write_exact_number(x[i++ & 1023], buffer));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NumberByToChars);

void BM_CsvRow8(benchmark::State& state) {
  const std::vector<double> x = run_like_numbers(1024);
  mechint::app::CsvOutput out("/dev/null");  // a device: written through, as `--out /dev/null`
  out.header({"t", "x", "y", "vx", "vy", "energy", "J", "lambda1"});
  std::vector<double> row(8);
  std::size_t i = 0;
  for (auto _ : state) {
    for (double& v : row) v = x[i++ & 1023];
    out.row(row);
  }
}
BENCHMARK(BM_CsvRow8);

}  // namespace
