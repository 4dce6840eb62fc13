// Model files of any size (docs/model-files.md, "Definitions"; docs/performance.md, "Model files of
// any size"): a planar pendulum chain written as users write it — each mass's position from the one
// before, L from the positions' time derivatives — in relative (joint) angles and in absolute angles,
// with more links than the 32 coordinates model files were once limited to, run by the command line
// and cross-checked against the built-in `pendulum-chain` (hand-derived kernels, joint angles); and
// the generated source growing linearly with the number of links (the definitions were copied into
// trees, whose time derivatives and Hessians grew as n³ and refused 30 links).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::parse_csv;
using mechint::testing::run_mechint;
using mechint::testing::Table;
using mechint::testing::write_harness_file;

/// The chain of `links` unit masses on unit links (g = 9.81): coordinates th1..thN, the built-in's
/// joint angles (relative), or a1..aN, the links' absolute angles. The built-in's default start:
/// the first link at pi/4 from the downward vertical, the others straight on from it, at rest.
std::string chain(int links, bool relative) {
  std::string coordinates, kinetic, potential, initial, definitions;
  for (int k = 1; k <= links; ++k) {
    const std::string i = std::to_string(k), before = std::to_string(k - 1);
    const std::string q = (relative ? "th" : "a") + i;
    coordinates += std::string(k > 1 ? ", " : "") + "\"" + q + "\"";
    kinetic += std::string(k > 1 ? " + " : "") + "x" + i + "_dot^2 + y" + i + "_dot^2";
    potential += std::string(k > 1 ? " + " : "") + "y" + i;
    if (relative) definitions += "a" + i + " = \"" + (k > 1 ? "a" + before + " + " : "") + q + "\"\n";
    if (!relative || k == 1) initial += q + " = 0.7853981633974483\n";
  }
  for (int k = 1; k <= links; ++k) {
    const std::string i = std::to_string(k), before = std::to_string(k - 1);
    definitions += "x" + i + " = \"" + (k > 1 ? "x" + before + " + " : "") + "l*sin(a" + i + ")\"\n";
    definitions += "y" + i + " = \"" + (k > 1 ? "y" + before + " - " : "-") + "l*cos(a" + i + ")\"\n";
  }
  return "name = \"chain\"\ncoordinates = [" + coordinates + "]\nparameters = { m = 1.0, l = 1.0, g = 9.81 }\n" +
         "lagrangian = \"0.5*m*(" + kinetic + ") - m*g*(" + potential + ")\"\nh = 0.01\n[initial]\n" + initial +
         "[definitions]\n" + definitions;
}

class ModelFileChains : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1); }
};

Table run_ok(const std::string& args) {
  const mechint::testing::CliResult r = run_mechint(args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
  return parse_csv(r.out);
}

constexpr int kLinks = 40;  // more than the 32 coordinates model files were once limited to
const std::string kRun = " --method vi-midpoint --h 0.01 --t-end 10 --output-every 1";

TEST_F(ModelFileChains, RelativeAnglesGiveTheBuiltInChainsTrajectory) {
  const std::string file = write_harness_file("chains", "relative.toml", chain(kLinks, true));
  const Table from_file = run_ok("run " + file + kRun);
  const Table builtin = run_ok("run pendulum-chain --set links=" + std::to_string(kLinks) + kRun);
  ASSERT_EQ(from_file.rows, 11u);
  ASSERT_EQ(builtin.rows, 11u);
  double worst = 0.0;
  for (int k = 1; k <= kLinks; ++k) {
    const std::string th = "th" + std::to_string(k);
    for (std::size_t r = 0; r < from_file.rows; ++r) worst = std::max(worst, std::abs(from_file[th][r] - builtin[th][r]));
  }
  EXPECT_LE(worst, 1e-10);
  // The motion is not trivial: the last joint has moved.
  EXPECT_GT(std::abs(builtin["th" + std::to_string(kLinks)].back()), 1e-3);
}

TEST_F(ModelFileChains, AbsoluteAnglesGiveTheBuiltInChainsTrajectory) {
  const std::string file = write_harness_file("chains", "absolute.toml", chain(kLinks, false));
  const Table from_file = run_ok("run " + file + kRun);
  const Table builtin = run_ok("run pendulum-chain --set links=" + std::to_string(kLinks) + kRun);
  ASSERT_EQ(from_file.rows, 11u);
  ASSERT_EQ(builtin.rows, 11u);
  // Joint angle k of the built-in is a_k − a_(k−1) of the file.
  double worst = 0.0;
  for (int k = 1; k <= kLinks; ++k) {
    const std::string a = "a" + std::to_string(k), before = "a" + std::to_string(k - 1), th = "th" + std::to_string(k);
    for (std::size_t r = 0; r < from_file.rows; ++r) {
      const double joint = from_file[a][r] - (k > 1 ? from_file[before][r] : 0.0);
      worst = std::max(worst, std::abs(joint - builtin[th][r]));
    }
  }
  EXPECT_LE(worst, 1e-10);
}

TEST_F(ModelFileChains, TheGeneratedSourceGrowsLinearlyWithTheLinks) {
  // Written out as trees the definitions grew as n² (positions) and n³ (their time derivatives, then
  // the Hessian's forward derivatives): 20 links were 2.5 MB of C, 30 refused. As a graph, with the
  // Hessian by tangents, each link adds the same few nodes and tape entries.
  const char* suite_cache = std::getenv("MECHINT_CACHE_DIR");
  const std::string restore = suite_cache ? suite_cache : "";
  const fs::path base = mechint::testing::harness_directory();
  std::vector<double> sizes;
  for (const int links : {20, 40}) {
    const fs::path cache = base / ("cache-" + std::to_string(links));
    fs::create_directories(cache);
    fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
    ::setenv("MECHINT_CACHE_DIR", cache.c_str(), 1);
    const std::string file = write_harness_file("chains", "size-" + std::to_string(links) + ".toml", chain(links, true));
    const mechint::testing::CliResult r = run_mechint("run " + file + " --t-end 0.01 --out " + (base / "size.csv").string());
    EXPECT_EQ(r.status, 0) << r.err;
    std::uintmax_t size = 0;
    for (const auto& entry : fs::directory_iterator(cache))
      if (entry.path().extension() == ".cpp") size = std::max(size, entry.file_size());
    sizes.push_back(static_cast<double>(size));
  }
  ::setenv("MECHINT_CACHE_DIR", restore.c_str(), 1);
  ASSERT_GT(sizes[0], 0.0);
  // Linear: 2x from 20 to 40 links (plus the n x n output rows' small part); n² would be 4x.
  EXPECT_LT(sizes[1] / sizes[0], 2.6) << sizes[0] << " -> " << sizes[1] << " bytes";
}

}  // namespace
