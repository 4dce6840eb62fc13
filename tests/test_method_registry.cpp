// The one method registry (src/methods/method_registry.hpp): its invariants over every kind of
// model structure, and the structure it decides from, computed two independent ways for every
// example model file — from the file's description before anything is compiled, and from the
// compiled kernel model — which must agree (they decide what `mechint list` and a run offer).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "methods/method_registry.hpp"
#include "model_file/model_file.hpp"
#include "model_file/model_file_system.hpp"
#include "model_file/model_kernels_plugin.hpp"

namespace {

using namespace mechint;
namespace fs = std::filesystem;
using methods::MethodStructure;

std::vector<MethodStructure> every_structure() {
  std::vector<MethodStructure> all;
  for (int constraints : {0, 2})
    for (int walls : {0, 1, 2})  // none, on, switched off
      for (bool nonholonomic : {false, true})
        for (bool forced : {false, true})
          for (bool charted : {false, true})
            for (bool em : {false, true})
              all.push_back({.num_constraints = constraints, .walls = walls == 1, .walls_switched_off = walls == 2,
                             .nonholonomic = nonholonomic, .forced = forced, .charted = charted,
                             .energy_momentum = em && !forced, .constraint_curvature = constraints > 0});
  return all;
}

TEST(MethodRegistry, NoTwoRowsOfOneNameApplyToOneStructure) {
  for (const MethodStructure& s : every_structure()) {
    const auto offered = methods::offered_methods(s);
    const std::set<std::string> unique(offered.begin(), offered.end());
    EXPECT_EQ(unique.size(), offered.size());
  }
}

TEST(MethodRegistry, EveryRowAppliesSomewhereAndItsDefaultOptionsResolve) {
  for (const methods::MethodRow& row : methods::method_rows()) {
    bool applied = false;
    for (const MethodStructure& s : every_structure()) {
      if (!methods::applies(row.requirements, s)) continue;
      applied = true;
      EXPECT_EQ(methods::find_row(s, row.name), &row) << row.name;
      const auto options = methods::method_options(s, row.name);
      EXPECT_NO_THROW(app::ParameterValues::resolve(options, {}, row.name)) << row.name;
    }
    EXPECT_TRUE(applied) << row.name;
    EXPECT_FALSE(row.summary.empty()) << row.name;
  }
}

TEST(MethodRegistry, AMethodThatDoesNotApplyIsRefusedNamingTheOffered) {
  const MethodStructure walls{.walls = true};
  EXPECT_EQ(methods::offered_methods(walls), (std::vector<std::string>{"vi-trapezoid", "stormer-verlet"}));
  try {
    methods::method_options(walls, "rk4");
    ADD_FAILURE() << "rk4 applied to a model with walls";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("offered: vi-trapezoid, stormer-verlet"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(methods::is_method("vi-simpson"));
  EXPECT_EQ(methods::method_order("vi-gauss8"), 8);
  app::ParameterValues composed = app::ParameterValues::resolve(
      methods::method_options(MethodStructure{}, "vi-midpoint"), {{"compose", "kahan-li8"}}, "vi-midpoint");
  EXPECT_EQ(methods::method_order("vi-midpoint", &composed), 8);
  EXPECT_EQ(methods::method_order("vi-first-order", &composed), 1);  // not composable
}

TEST(MethodRegistry, OptimizeTranscribesTheSymmetricRulesAndTheGalerkinRules) {
  std::vector<std::string> transcribed;
  for (const methods::MethodRow& row : methods::method_rows())
    if (row.transcription) transcribed.push_back(row.name);
  EXPECT_EQ(transcribed, (std::vector<std::string>{"vi-midpoint", "vi-trapezoid", "vi-gauss4", "vi-gauss6", "vi-gauss8",
                                                   "vi-lobatto4", "vi-lobatto6"}));
}

std::string describe(const MethodStructure& s) {
  return "constraints " + std::to_string(s.num_constraints) + ", walls " + std::to_string(s.walls) + ", switched off " +
         std::to_string(s.walls_switched_off) + ", nonholonomic " + std::to_string(s.nonholonomic) + ", forced " +
         std::to_string(s.forced) + ", charted " + std::to_string(s.charted) + ", energy-momentum " +
         std::to_string(s.energy_momentum) + ", curvature " + std::to_string(s.constraint_curvature);
}

TEST(MethodRegistry, AModelFilesStructureFromItsTextIsThatOfItsCompiledKernels) {
  const fs::path models = fs::path(MECHINT_SOURCE_DIR) / "examples" / "models";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(models)) {
    if (entry.path().extension() != ".toml") continue;
    const std::string path = entry.path().string();
    const model_file::ModelDescription d = model_file::read_model_file(path);
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    model_file::ModelKernelsPlugin plugin(d, text);
    const auto values = app::ParameterValues::resolve(model_file::model_file_parameters(d), {}, d.name);
    const MethodStructure compiled = methods::structure_of(plugin.problem(values));
    const MethodStructure described = model_file::kernel_model_structure(d);
    EXPECT_EQ(describe(compiled), describe(described)) << path;
    EXPECT_EQ(methods::offered_methods(compiled), model_file::kernel_model_methods(d)) << path;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
