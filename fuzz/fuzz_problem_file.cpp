// libFuzzer target over the optimal control problem files of `mechint optimize PROBLEM.toml`
// (app/optimal_control_file.cpp: parse_optimal_control_text, docs/optimal-control.md). See
// docs/fuzzing.md.
//
// Input: the bytes of a problem file, named problems/fuzz.toml. Finding: a crash, a hang, a
// sanitizer report, an exception other than mechint::InvalidInput or mechint::IoError, a message
// that is not one printable line `problems/fuzz.toml:LINE:COLUMN: what`, or an accepted spec that
// breaks what the reader promises (__builtin_trap): a model named (a relative model file or URDF resolved
// beside the problem file), a positive finite horizon, steps in [2, 100000], finite start, goal and
// bounds, a positive finite effort, solver settings in their ranges, the method and [parameters] as
// written (a number as text that reads back exactly), every position at line and column >= 1. Names,
// the method and empty bounds (lower >= upper) are checked later, against the system
// (app/optimize_problem.hpp), and are not the reader's to refuse.
#include <toml++/toml.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "app/optimal_control_file.hpp"
#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"

namespace {

using namespace mechint::app;

constexpr std::string_view kLabel = "problems/fuzz.toml";

void check_message(std::string_view message) { mechint::fuzz::check_located_message(message, kLabel); }

void check_position(const mechint::model_file::SourcePosition& where) {
  FUZZ_CHECK(where.line >= 1 && where.column >= 1);
}

void check_spec(const OptimalControlSpec& spec, std::string_view text) {
  FUZZ_CHECK(spec.file == kLabel);
  FUZZ_CHECK(!spec.model.empty());
  check_position(spec.model_where);
  // The model as written: a relative model file or URDF is taken from the problem file's directory.
  const toml::table root = toml::parse(text);
  const std::string written = root["model"].value_or(std::string());
  const bool relative_file = written.size() > 5 && (written.ends_with(".toml") || written.ends_with(".urdf")) &&
                             std::filesystem::path(written).is_relative();
  FUZZ_CHECK(spec.model == (relative_file ? (std::filesystem::path("problems") / written).string() : written));

  FUZZ_CHECK(std::isfinite(spec.horizon) && spec.horizon > 0.0);
  FUZZ_CHECK(spec.steps >= 2 && spec.steps <= 100000);
  if (root.contains("method")) {
    check_position(spec.method_where);
    FUZZ_CHECK(spec.method == root["method"].value_or(std::string()));
  } else {
    FUZZ_CHECK(spec.method == "vi-midpoint");
  }
  for (const auto* values : {&spec.start, &spec.goal}) {
    for (const auto& [name, v] : *values) {
      FUZZ_CHECK(std::isfinite(v.value));
      check_position(v.where);
    }
  }
  for (const auto& [name, b] : spec.bounds) {
    FUZZ_CHECK(std::isfinite(b.lower) && std::isfinite(b.upper));
    check_position(b.where);
  }
  FUZZ_CHECK(std::isfinite(spec.effort) && spec.effort > 0.0);
  FUZZ_CHECK(spec.hessian == mechint::optimal::HessianMode::kExact ||
             spec.hessian == mechint::optimal::HessianMode::kLimitedMemory);
  FUZZ_CHECK(spec.tolerance >= 1e-15 && spec.tolerance <= 1e-2);
  FUZZ_CHECK(std::isfinite(spec.resimulation_tolerance) && spec.resimulation_tolerance > 0.0 &&
             spec.resimulation_tolerance <= 1.0);
  FUZZ_CHECK(spec.max_iterations >= 1 && spec.max_iterations <= 1000000);
  // [parameters] as --set would give them: a string as written, a number as text that reads back
  // as exactly that number.
  const toml::table* parameters = root["parameters"].as_table();
  FUZZ_CHECK(spec.parameters.size() == (parameters ? parameters->size() : 0));
  for (const auto& [name, value] : spec.parameters) {
    const toml::node* node = parameters->get(name);
    FUZZ_CHECK(node != nullptr);
    if (const auto* s = node->as_string()) {
      FUZZ_CHECK(value == s->get());
    } else if (const auto* i = node->as_integer()) {
      FUZZ_CHECK(value == std::to_string(i->get()));
    } else {
      const auto* f = node->as_floating_point();
      FUZZ_CHECK(f != nullptr && std::isfinite(f->get()));
      FUZZ_CHECK(std::strtod(value.c_str(), nullptr) == f->get());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mechint::fuzz::expect_only_refusals(
      [&] { check_spec(parse_optimal_control_text(text, std::string(kLabel)), text); }, check_message);
  return 0;
}
