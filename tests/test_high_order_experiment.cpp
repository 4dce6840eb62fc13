// `mechint reproduce high-order` through the command: its work–precision table against the
// closed-form Kepler orbit shows each method's order (the median of the log-ratios over its step
// sizes, which leaves out the coarsest, pre-asymptotic points and the finest, round-off ones), the
// adaptive baselines appear where they apply (dae on the constrained problem), energy-momentum's
// compositions reach their order with constraints, and every variational method's energy over 10⁶
// steps is reported and finite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::read_file;
using mechint::testing::run_mechint;

struct Point {
  double h, error;
};

/// problem -> method -> points, from work_precision.csv (problem,method,h_or_tol,steps,error,cpu_s).
std::map<std::string, std::map<std::string, std::vector<Point>>> read_table(const fs::path& csv) {
  std::istringstream in(read_file(csv));
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::map<std::string, std::vector<Point>>> t;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    t[cells.at(0)][cells.at(1)].push_back({std::stod(cells.at(2)), std::stod(cells.at(4))});
  }
  return t;
}

double median_order(std::vector<Point> p) {
  std::sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.h > b.h; });
  std::vector<double> orders;
  for (std::size_t i = 0; i + 1 < p.size(); ++i) orders.push_back(std::log(p[i].error / p[i + 1].error) / std::log(p[i].h / p[i + 1].h));
  std::sort(orders.begin(), orders.end());
  return orders.at(orders.size() / 2);
}

TEST(HighOrderExperiment, ReportsOrdersBaselinesAndLongRunEnergy) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_high_order_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = run_mechint("reproduce high-order --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path& out = dir;  // one experiment writes into --out itself
  for (const char* f : {"report.md", "results.json", "work_precision.csv", "energy.csv"}) EXPECT_TRUE(fs::exists(out / f)) << f;

  const auto table = read_table(out / "work_precision.csv");
  const auto& kepler = table.at("kepler-e0.5");
  const std::map<std::string, double> stated = {{"vi-gauss4", 4}, {"vi-gauss6", 6}, {"vi-lobatto4", 4}, {"vi-lobatto6", 6},
                                                {"compose=yoshida4", 4}, {"compose=kahan-li6", 6}};
  for (const auto& [method, order] : stated) EXPECT_NEAR(median_order(kepler.at(method)), order, 0.2) << method;
  // Order 8 at the finest step: below what the order-2 rule reaches at its finest by six decades.
  const auto finest = [&](const std::string& m) { return kepler.at(m).back().error; };
  EXPECT_LT(finest("vi-gauss8"), 1e-6 * finest("vi-midpoint"));
  // The adaptive baselines on the unconstrained problems only; the constrained one has the Lobatto rules.
  for (const char* p : {"kepler-e0.5", "kepler-e0.9", "three-body"}) {
    EXPECT_EQ(table.at(p).count("rk78"), 1u) << p;
    EXPECT_EQ(table.at(p).count("dopri5"), 1u) << p;
  }
  const auto& dsp = table.at("double-spherical-pendulum");
  EXPECT_EQ(dsp.count("rk78"), 0u);
  EXPECT_EQ(dsp.count("vi-lobatto6"), 1u);
  EXPECT_EQ(dsp.at("dae").size(), 4u);  // the constrained baseline at its four tolerances
  // energy-momentum composed with constraints (pairs of half steps): kahan-li6 of order 6 between
  // h = 0.04, 0.02 and 0.01, where its errors (1e-8 … 3e-12) stand above the reference's 3e-13.
  const auto at_h = [&](const std::string& m, double h) {
    for (const Point& p : dsp.at(m))
      if (std::abs(p.h - h) < 1e-12) return p.error;
    ADD_FAILURE() << m << " has no point at h = " << h;
    return 1.0;
  };
  for (const auto& [coarse, fine] : {std::pair{0.04, 0.02}, std::pair{0.02, 0.01}})
    EXPECT_NEAR(std::log2(at_h("energy-momentum compose=kahan-li6", coarse) / at_h("energy-momentum compose=kahan-li6", fine)),
                6.0, 0.2)
        << "h = " << coarse << " to " << fine;
  EXPECT_NEAR(std::log2(at_h("energy-momentum compose=yoshida4", 0.04) / at_h("energy-momentum compose=yoshida4", 0.01)) / 2,
              4.0, 0.2);

  const auto j = nlohmann::json::parse(read_file(out / "results.json"));
  for (const char* m : {"vi-gauss4", "vi-gauss6", "vi-gauss8", "vi-lobatto4", "vi-lobatto6", "compose=yoshida4",
                        "compose=kahan-li6", "compose=kahan-li8"}) {
    ASSERT_TRUE(j["energy_over_1e6_steps"].contains(m)) << m;
    const double last = j["energy_over_1e6_steps"][m]["last_tenth"].get<double>();
    EXPECT_TRUE(std::isfinite(last) && last < 1e-2) << m << " " << last;  // bounded, no blow-up
  }
  fs::remove_all(dir);
}

}  // namespace
