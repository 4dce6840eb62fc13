#include "app/optimal_control_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <filesystem>
#include <vector>

#include "app/toml_values.hpp"
#include "mechint/core/format.hpp"
#include "model_file/system_file.hpp"
#include "model_file/toml_input.hpp"

namespace mechint::app {
namespace {

using model_file::SourcePosition;

constexpr std::array<std::string_view, 10> kKeys = {"model", "horizon", "steps",  "method", "parameters",
                                                    "start", "goal",    "bounds", "cost",   "solver"};
constexpr std::array<std::string_view, 1> kCostKeys = {"effort"};
constexpr std::array<std::string_view, 5> kSolverKeys = {"hessian", "initial_guess", "tolerance", "max_iterations",
                                                         "resimulation_tolerance"};
/// Most steps accepted: the program has about (2n+m)² nonzeros per step in its Hessian.
constexpr int kMaxSteps = 100000;

SourcePosition position_of(const toml::node& node) {
  const auto clamp = [](std::uint32_t x) { return static_cast<int>(std::min<std::uint32_t>(x, INT_MAX)); };
  return {std::max(clamp(node.source().begin.line), 1), std::max(clamp(node.source().begin.column), 1)};
}

std::vector<std::string> names_of(auto const& keys) { return {keys.begin(), keys.end()}; }

class Reader : public TomlValues<Reader> {
 public:
  Reader(const toml::table& root, OptimalControlSpec& spec) : root_(root), spec_(spec) {}

  void read() {
    check_keys(root_, kKeys, "");
    read_model();
    spec_.horizon = positive_number(require("horizon", "the final time T"), "horizon");
    read_steps();
    if (const auto* node = root_.get("method")) {
      spec_.method = string_value(*node, "method");
      spec_.method_where = position_of(*node);
    }
    if (const auto* node = root_.get("parameters")) read_parameters(table_value(*node, "[parameters]"));
    if (const auto* node = root_.get("start")) read_values(table_value(*node, "[start]"), spec_.start, "[start]");
    if (const auto* node = root_.get("goal")) read_values(table_value(*node, "[goal]"), spec_.goal, "[goal]");
    if (const auto* node = root_.get("bounds")) read_bounds(table_value(*node, "[bounds]"));
    if (const auto* node = root_.get("cost")) read_cost(table_value(*node, "[cost]"));
    if (const auto* node = root_.get("solver")) read_solver(table_value(*node, "[solver]"));
  }

 private:
  friend class TomlValues<Reader>;
  [[noreturn]] void fail(const toml::node& node, const std::string& what) const { spec_.fail(position_of(node), what); }

  template <std::size_t N>
  void check_keys(const toml::table& table, const std::array<std::string_view, N>& known, const std::string& in) const {
    for (const auto& [key, value] : table) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      const std::string name(key.str());
      spec_.fail({std::max(static_cast<int>(key.source().begin.line), 1), std::max(static_cast<int>(key.source().begin.column), 1)},
                 "unknown key " + quote_for_message(name) + (in.empty() ? "" : " in " + in) +
                     model_file::did_you_mean(name, names_of(known)) +
                     " (known: " + model_file::join_names(names_of(known)) + ")");
    }
  }

  const toml::node& require(std::string_view key, std::string_view meaning) const {
    const toml::node* node = root_.get(key);
    if (!node) spec_.fail({1, 1}, "missing required key '" + std::string(key) + "' (" + std::string(meaning) + ")");
    return *node;
  }

  void read_model() {
    const toml::node& node = require("model", "a built-in system's name or a model file's path");
    spec_.model = string_value(node, "model");
    spec_.model_where = position_of(node);
    if (spec_.model.empty()) fail(node, "model is empty");
    if (model_file::is_system_file_name(spec_.model)) {
      // A relative model path is relative to the problem file.
      const std::filesystem::path model(spec_.model);
      if (model.is_relative()) spec_.model = (std::filesystem::path(spec_.file).parent_path() / model).string();
    }
  }

  void read_steps() {
    const toml::node& node = require("steps", "the number N of time steps");
    const auto* i = node.as_integer();
    if (!i) fail(node, "steps must be an integer");
    if (i->get() < 2 || i->get() > kMaxSteps)
      fail(node, "steps must be between 2 and " + std::to_string(kMaxSteps) + ", not " + std::to_string(i->get()));
    spec_.steps = static_cast<int>(i->get());
  }

  void read_parameters(const toml::table& table) {
    for (const auto& [key, value] : table) {
      const std::string name(key.str());
      spec_.parameter_where[name] = position_of(value);
      if (const auto* s = value.as_string()) {
        spec_.parameters[name] = s->get();
      } else if (const auto* integer = value.as_integer()) {
        spec_.parameters[name] = std::to_string(integer->get());
      } else {
        spec_.parameters[name] = format_number(number_value(value, "parameter " + name), 17);
      }
    }
  }

  void read_values(const toml::table& table, std::map<std::string, LocatedValue>& into, const std::string& what) {
    for (const auto& [key, value] : table) {
      const std::string name(key.str());
      into[name] = {number_value(value, what + " " + name), position_of(value)};
    }
  }

  void read_bounds(const toml::table& table) {
    for (const auto& [key, value] : table) {
      const std::string name(key.str());
      const auto* a = value.as_array();
      if (!a || a->size() != 2) fail(value, "[bounds] " + name + " must be [lower, upper]");
      const double lower = number_value(*a->get(0), "[bounds] " + name + " lower");
      const double upper = number_value(*a->get(1), "[bounds] " + name + " upper");
      spec_.bounds[name] = {lower, upper, position_of(value)};
    }
  }

  void read_cost(const toml::table& table) {
    check_keys(table, kCostKeys, "[cost]");
    if (const auto* node = table.get("effort")) spec_.effort = positive_number(*node, "[cost] effort");
  }

  void read_solver(const toml::table& table) {
    check_keys(table, kSolverKeys, "[solver]");
    if (const auto* node = table.get("hessian")) {
      const std::string h = string_value(*node, "[solver] hessian");
      if (h == "exact") spec_.hessian = optimal::HessianMode::kExact;
      else if (h == "limited-memory") spec_.hessian = optimal::HessianMode::kLimitedMemory;
      else fail(*node, "[solver] hessian must be \"exact\" or \"limited-memory\", not " + quote_for_message(h));
    }
    if (const auto* node = table.get("initial_guess")) {
      const std::string g = string_value(*node, "[solver] initial_guess");
      if (g != "interpolation" && g != "simulation")
        fail(*node, "[solver] initial_guess must be \"interpolation\" or \"simulation\", not " + quote_for_message(g));
      spec_.simulation_guess = g == "simulation";
    }
    if (const auto* node = table.get("tolerance")) {
      spec_.tolerance = positive_number(*node, "[solver] tolerance");
      if (spec_.tolerance < 1e-15 || spec_.tolerance > 1e-2)
        fail(*node, "[solver] tolerance must be between 1e-15 and 1e-2");
    }
    if (const auto* node = table.get("resimulation_tolerance")) {
      spec_.resimulation_tolerance = positive_number(*node, "[solver] resimulation_tolerance");
      if (spec_.resimulation_tolerance > 1.0) fail(*node, "[solver] resimulation_tolerance must be at most 1");
    }
    if (const auto* node = table.get("max_iterations")) {
      const auto* i = node->as_integer();
      if (!i || i->get() < 1 || i->get() > 1000000) fail(*node, "[solver] max_iterations must be an integer from 1 to 1000000");
      spec_.max_iterations = static_cast<int>(i->get());
    }
  }

  const toml::table& root_;
  OptimalControlSpec& spec_;
};

}  // namespace

OptimalControlSpec parse_optimal_control_text(std::string_view text, const std::string& file) {
  OptimalControlSpec spec;
  spec.file = file;
  const toml::table root = model_file::parse_toml(text, file);
  Reader(root, spec).read();
  return spec;
}

OptimalControlSpec read_optimal_control_file(const std::string& path) {
  return parse_optimal_control_text(model_file::read_input_file(path, "problem file"), path);
}

}  // namespace mechint::app
