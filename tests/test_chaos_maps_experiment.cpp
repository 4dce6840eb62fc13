// `mechint reproduce chaos-maps` through the command, at the reduced resolution the experiment
// offers for this (MECHINT_CHAOS_MAPS_REDUCED=1: coarser grids, shorter runs). What is asserted,
// each against something the experiment does not compute itself:
//   - the literature's picture (Hénon & Heiles 1964): at E = 1/12 nearly every start is regular
//     (⟨Y⟩ < 2.5: on a torus it tends to 2, from below, slowly: at the reduced t_end = 200 most
//     regular members are still between 1 and 2), none chaotic (⟨Y⟩ > 4); a chaotic sea at
//     E = 1/8, and a larger one at E = 1/6;
//   - a member of a map is the `mechint run` of its values: the same ⟨Y⟩ to the bit;
//   - every Poincaré crossing lies on its energy surface (the energy computed here from the crossing's
//     state), and the forbidden members of every map are exactly the grid points where the speed
//     from the energy (Hénon–Heiles) or the Jacobi constant (three-body) is imaginary;
//   - the model file it writes has the Lagrangian of examples/models/henon-heiles.toml;
//   - the summaries, the report and both figures are written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

/// A CSV file as rows of name -> cell (no quoted cells in the files read here).
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::stringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::stringstream cells(line);
    for (const std::string& name : header) std::getline(cells, row[name], ',');
    rows.push_back(std::move(row));
  }
  return rows;
}

/// The line of a TOML file that starts with `key`.
std::string line_starting(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line;
  return "";
}

/// The output of the one experiment run that every check below reads (the experiment runs once:
/// the checks are functions of one test, not tests of their own, each of which would run it again).
struct Output {
  fs::path dir;
  nlohmann::json results() const { return nlohmann::json::parse(read_file(dir / "results.json")); }
};

void WritesItsFilesAndFigures(const Output& o) {
  SCOPED_TRACE("WritesItsFilesAndFigures");
  for (const char* f : {"report.md", "results.json", "maps.csv", "sections.csv", "henon-heiles.toml",
                        "henon_heiles.png", "three_body.png"})
    EXPECT_TRUE(fs::exists(o.dir / f)) << f;
  for (const char* s : {"henon-heiles-E1", "henon-heiles-E2", "henon-heiles-E3", "three-body"}) {
    EXPECT_TRUE(fs::exists(o.dir / "sweeps" / (std::string(s) + ".toml"))) << s;
    EXPECT_TRUE(fs::exists(o.dir / "sweeps" / s / "summary.csv")) << s;
  }
  EXPECT_TRUE(o.results()["resolution"]["reduced"].get<bool>());
  EXPECT_NE(read_file(o.dir / "report.md").find("Reduced resolution"), std::string::npos);
  // The model it sweeps is the example's.
  const std::string lagrangian = line_starting(read_file(o.dir / "henon-heiles.toml"), "lagrangian");
  EXPECT_FALSE(lagrangian.empty());
  EXPECT_EQ(lagrangian, line_starting(read_file(fs::path(MECHINT_SOURCE_DIR) / "examples/models/henon-heiles.toml"), "lagrangian"));
}

void HenonHeilesMapsFollowTheLiterature(const Output& o) {
  SCOPED_TRACE("HenonHeilesMapsFollowTheLiterature");
  const auto rows = read_csv(o.dir / "maps.csv");
  const auto j = o.results();
  std::map<std::string, double> chaotic, regular;
  for (const char* name : {"henon-heiles-E1", "henon-heiles-E2", "henon-heiles-E3"}) {
    const double energy = j["henon_heiles"][name]["energy"].get<double>();
    long on_surface = 0, n_chaotic = 0, n_regular = 0, forbidden = 0;
    for (const auto& r : rows) {
      if (r.at("map") != name) continue;
      const double y = std::stod(r.at("u")), y_dot = std::stod(r.at("v"));
      // ẋ² = 2E − ẏ² − y² + 2y³/3 on x = 0: negative is outside the energy surface.
      const double x_dot_squared = 2 * energy - y_dot * y_dot - y * y + 2 * y * y * y / 3;
      if (r.at("kind") == "forbidden") {
        ++forbidden;
        EXPECT_LT(x_dot_squared, 1e-12) << name << " y " << y << " y_dot " << y_dot;
        continue;
      }
      EXPECT_GT(x_dot_squared, -1e-12) << name << " y " << y << " y_dot " << y_dot;
      ASSERT_EQ(r.at("kind"), "ok") << name;  // nothing fails at these energies and this step
      ++on_surface;
      const double megno = std::stod(r.at("megno"));
      n_chaotic += megno > 4.0;
      n_regular += megno < 2.5;
    }
    ASSERT_GT(on_surface, 200) << name;
    EXPECT_GT(forbidden, 0) << name;  // the box of the region has corners outside it
    chaotic[name] = double(n_chaotic) / double(on_surface);
    regular[name] = double(n_regular) / double(on_surface);
  }
  EXPECT_GE(regular["henon-heiles-E1"], 0.95) << "E = 1/12";
  EXPECT_LT(chaotic["henon-heiles-E1"], 0.02) << "E = 1/12";
  EXPECT_GT(chaotic["henon-heiles-E2"], 0.1) << "E = 1/8: a chaotic sea";
  EXPECT_GT(chaotic["henon-heiles-E3"], chaotic["henon-heiles-E2"] + 0.1) << "E = 1/6 against 1/8";
}

void AMemberIsTheRunOfItsValues(const Output& o) {
  SCOPED_TRACE("AMemberIsTheRunOfItsValues");
  const auto j = o.results();
  const auto summary = read_csv(o.dir / "sweeps/henon-heiles-E2/summary.csv");
  // A member in the middle of the grid (on the surface at E = 1/8).
  const auto& member = summary.at(summary.size() / 2);
  ASSERT_EQ(member.at("exit"), "0");
  const std::string t_end = j["resolution"]["hh_t_end"].dump(), h = j["resolution"]["hh_h"].dump();
  const auto r = run_mechint_argv({"run", (o.dir / "henon-heiles.toml").string(), "--method",
                                   j["resolution"]["hh_method"].get<std::string>(), "--h", h,
                                   "--t-end", t_end, "--output-every", t_end, "--set", "x=0", "--set", "indicators=on",
                                   "--set", "y=" + member.at("y"), "--set", "y_dot=" + member.at("y_dot"), "--set",
                                   "x_dot=" + member.at("x_dot")});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream out(r.out);
  std::string header, line, last;
  std::getline(out, header);
  while (std::getline(out, line)) last = line;
  std::vector<std::string> names, cells;
  for (std::stringstream s(header); std::getline(s, line, ',');) names.push_back(line);
  for (std::stringstream s(last); std::getline(s, line, ',');) cells.push_back(line);
  ASSERT_EQ(names.size(), cells.size());
  const auto megno = std::find(names.begin(), names.end(), "megno");
  ASSERT_NE(megno, names.end());
  EXPECT_EQ(cells.at(megno - names.begin()), member.at("megno"));
}

void PoincareCrossingsLieOnTheEnergySurface(const Output& o) {
  SCOPED_TRACE("PoincareCrossingsLieOnTheEnergySurface");
  const auto rows = read_csv(o.dir / "sections.csv");
  std::map<double, long> per_energy;
  double worst = 0.0;
  for (const auto& r : rows) {
    const double e = std::stod(r.at("energy")), y = std::stod(r.at("y"));
    const double x_dot = std::stod(r.at("x_dot")), y_dot = std::stod(r.at("y_dot"));
    EXPECT_GT(x_dot, 0.0);
    // H at x = 0: ½(ẋ² + ẏ²) + ½y² − y³/3.
    const double h = 0.5 * (x_dot * x_dot + y_dot * y_dot) + 0.5 * y * y - y * y * y / 3;
    worst = std::max(worst, std::abs(h - e));
    ++per_energy[e];
  }
  EXPECT_EQ(per_energy.size(), 3u);
  for (const auto& [e, n] : per_energy) EXPECT_GT(n, 500) << e;
  // vi-gauss4 at h = 0.1 keeps the energy error bounded, near 1e-7 here (measured: 1.3e-7 at the
  // reduced, 1.6e-7 at the full resolution); the interpolation between steps adds far less.
  EXPECT_LT(worst, 1e-6);
}

void ThreeBodyForbiddenRegionIsWhereTheSpeedIsImaginary(const Output& o) {
  SCOPED_TRACE("ThreeBodyForbiddenRegionIsWhereTheSpeedIsImaginary");
  const auto j = o.results();
  const double mu = j["three_body"]["mu"].get<double>(), c = j["three_body"]["jacobi"].get<double>();
  long ok = 0, forbidden = 0;
  for (const auto& r : read_csv(o.dir / "maps.csv")) {
    if (r.at("map") != "three-body") continue;
    const double x = std::stod(r.at("u")), y = std::stod(r.at("v"));
    const double two_omega = x * x + y * y + 2 * (1 - mu) / std::hypot(x + mu, y) + 2 * mu / std::hypot(x - 1 + mu, y);
    if (r.at("kind") == "forbidden") {
      ++forbidden;
      EXPECT_LT(two_omega, c) << x << " " << y;
    } else {
      EXPECT_GE(two_omega, c) << x << " " << y;
      if (r.at("kind") == "ok") {
        ++ok;
        EXPECT_TRUE(std::isfinite(std::stod(r.at("megno"))));
      }
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(forbidden, 0);
}

TEST(ChaosMapsExperiment, ReducedRunChecksAgainstIndependentFacts) {
  ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1);
  ::setenv("MECHINT_CHAOS_MAPS_REDUCED", "1", 1);
  const Output o{fs::temp_directory_path() / ("mechint_chaos_maps_" + std::to_string(::getpid()))};
  fs::remove_all(o.dir);
  const auto r = run_mechint_argv({"reproduce", "chaos-maps", "--out", o.dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  WritesItsFilesAndFigures(o);
  HenonHeilesMapsFollowTheLiterature(o);
  AMemberIsTheRunOfItsValues(o);
  PoincareCrossingsLieOnTheEnergySurface(o);
  ThreeBodyForbiddenRegionIsWhereTheSpeedIsImaginary(o);
  if (!HasFailure()) fs::remove_all(o.dir);  // kept to look at when a check failed
}

}  // namespace
