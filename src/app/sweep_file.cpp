#include "app/sweep_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/exact_number.hpp"
#include "app/sweep_samples.hpp"
#include "app/toml_values.hpp"
#include "mechint/core/format.hpp"
#include "model_file/system_file.hpp"
#include "model_file/toml_input.hpp"

namespace mechint::app {
namespace {

using model_file::SourcePosition;

constexpr std::array<std::string_view, 8> kKeys = {"system", "method", "h", "t_end", "set", "vary", "derived", "sweep"};
constexpr std::array<std::string_view, 6> kSweepKeys = {"combine", "seed", "record", "trajectories", "output_every",
                                                        "members"};
constexpr std::array<std::string_view, 9> kVaryKeys = {"from", "to", "count", "random", "low",
                                                       "high", "mean", "sd",    "values"};

SourcePosition position_of(const toml::source_region& region) {
  const auto clamp = [](std::uint32_t x) { return std::max(static_cast<int>(std::min<std::uint32_t>(x, INT_MAX)), 1); };
  return {clamp(region.begin.line), clamp(region.begin.column)};
}
SourcePosition position_of(const toml::node& node) { return position_of(node.source()); }

std::vector<std::string> names_of(auto const& keys) { return {keys.begin(), keys.end()}; }

/// The entries of a table in the order they are written in the file (toml++ keeps them sorted).
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [key, value] : table) entries.emplace_back(&key, &value);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto pa = position_of(a.first->source()), pb = position_of(b.first->source());
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return entries;
}

class Reader : public TomlValues<Reader> {
 public:
  Reader(const toml::table& root, SweepSpec& spec) : root_(root), spec_(spec) {}

  void read() {
    check_keys(root_, kKeys, "");
    read_system();
    if (const auto* node = root_.get("method")) {
      spec_.method = string_value(*node, "method");
      spec_.method_where = position_of(*node);
      if (spec_.method.empty()) fail(*node, "method is empty (leave it out for the system's default)");
    }
    if (const auto* node = root_.get("h")) {
      spec_.h = positive_number(*node, "h");
      spec_.h_where = position_of(*node);
    }
    if (const auto* node = root_.get("t_end")) {
      spec_.t_end = positive_number(*node, "t_end");
      spec_.t_end_where = position_of(*node);
    }
    // [sweep] first: the seed is needed to draw the random values of [vary].
    if (const auto* node = root_.get("sweep")) read_sweep(table_value(*node, "[sweep]"));
    if (const auto* node = root_.get("set")) read_set(table_value(*node, "[set]"));
    if (const auto* node = root_.get("vary")) read_vary(table_value(*node, "[vary]"));
    if (const auto* node = root_.get("derived")) read_derived(table_value(*node, "[derived]"));
    count_members();
  }

 private:
  friend class TomlValues<Reader>;
  [[noreturn]] void fail(const toml::node& node, const std::string& what) const { spec_.fail(position_of(node), what); }
  [[noreturn]] void fail(const toml::key& key, const std::string& what) const {
    spec_.fail(position_of(key.source()), what);
  }

  template <std::size_t N>
  void check_keys(const toml::table& table, const std::array<std::string_view, N>& known, const std::string& in) const {
    for (const auto& [key, value] : in_file_order(table)) {
      if (std::find(known.begin(), known.end(), key->str()) != known.end()) continue;
      const std::string name(key->str());
      fail(*key, "unknown key " + quote_for_message(name) + (in.empty() ? "" : " in " + in) +
                     model_file::did_you_mean(name, names_of(known)) + " (known: " +
                     model_file::join_names(names_of(known)) + ")");
    }
  }

  long count_value(const toml::node& node, const std::string& what) const {
    const auto* i = node.as_integer();
    if (!i) fail(node, what + " must be an integer");
    if (i->get() < 1) fail(node, what + " must be at least 1, not " + std::to_string(i->get()));
    if (static_cast<std::uint64_t>(i->get()) > kMaxSweepMembers)
      fail(node, what + " must be at most " + std::to_string(kMaxSweepMembers) + ", not " + std::to_string(i->get()));
    return static_cast<long>(i->get());
  }

  /// Counts `count` more values of [vary] before they are generated, refusing beyond kMaxSweepValues.
  void hold_values(const toml::node& node, std::size_t count) {
    if (count > kMaxSweepValues - values_held_)
      fail(node, "[vary] would hold more than " + std::to_string(kMaxSweepValues) +
                     " values in all (its names together; each is kept in memory): use fewer values");
    values_held_ += count;
  }

  void read_system() {
    const toml::node* node = root_.get("system");
    if (!node) spec_.fail({1, 1}, "missing required key 'system' (a built-in system's name or a model file's path)");
    spec_.system = spec_.system_as_written = string_value(*node, "system");
    spec_.system_where = position_of(*node);
    if (spec_.system.empty()) fail(*node, "system is empty");
    spec_.system_is_file = model_file::is_system_file_name(spec_.system);
    if (spec_.system_is_file) {
      // A relative model path is relative to the sweep file.
      const std::filesystem::path model(spec_.system);
      if (model.is_relative()) spec_.system = (std::filesystem::path(spec_.file).parent_path() / model).string();
    }
  }

  /// A value of [set] or of a [vary] list: a number (exact) or a string (a choice), as --set text.
  std::string setting_text(const toml::node& node, const std::string& what) const {
    if (const auto* s = node.as_string()) {
      if (s->get().empty()) fail(node, what + " is empty");
      return s->get();
    }
    if (const auto* i = node.as_integer()) return std::to_string(i->get());
    if (node.as_floating_point()) return exact_text(number_value(node, what));
    fail(node, what + " must be a number or a string");
  }

  void check_new_name(const toml::key& key, const std::string& where) const {
    const std::string name(key.str());
    for (const auto& s : spec_.set)
      if (s.name == name) fail(key, quote_for_message(name) + " is in [set] already: a name is set, varied or derived once");
    for (const auto& v : spec_.vary)
      if (v.name == name) fail(key, quote_for_message(name) + " is in [vary] already: a name is set, varied or derived once");
    for (const auto& d : spec_.derived)
      if (d.name == name)
        fail(key, quote_for_message(name) + " is in [derived] already: a name is set, varied or derived once");
    if (name == "t_end" || name == "method" || name == "output_every")
      fail(key, quote_for_message(name) + " cannot be " + where + ": give it at the top of the file");
  }

  void read_set(const toml::table& table) {
    for (const auto& [key, value] : in_file_order(table)) {
      check_new_name(*key, "set in [set]");
      const std::string name(key->str());
      if (name == "h") fail(*key, "'h' is given at the top of the file, not in [set]");
      spec_.set.push_back({name, setting_text(*value, "[set] " + name), position_of(*value)});
    }
  }

  void read_vary(const toml::table& table) {
    spec_.vary_where = position_of(table);
    for (const auto& [key, value] : in_file_order(table)) {
      check_new_name(*key, "varied");
      SweepVaried v;
      v.name = std::string(key->str());
      v.where = position_of(key->source());
      const std::string what = "[vary] " + v.name;
      if (const auto* list = value->as_array()) {
        read_list(*list, *value, what, v);
      } else if (const auto* entry = value->as_table()) {
        read_generated(*entry, *value, what, v);
      } else {
        fail(*value, what + " must be a list [a, b, ...], { from = a, to = b, count = n } or { random = \"uniform\" | "
                            "\"normal\" | \"sobol\", ..., count = n }");
      }
      if (v.name == "h")
        for (std::size_t i = 0; i < v.texts.size(); ++i) {
          char* end = nullptr;
          const double h = std::strtod(v.texts[i].c_str(), &end);
          if (end == v.texts[i].c_str() || *end != '\0' || !(h > 0.0))
            spec_.fail(v.value_where[i], what + ": every step must be a positive number, not " +
                                             quote_for_message(v.texts[i]));
        }
      spec_.vary.push_back(std::move(v));
    }
  }

  void read_list(const toml::array& list, const toml::node& node, const std::string& what, SweepVaried& v) {
    if (list.empty()) fail(node, what + " is an empty list: give at least one value");
    if (list.size() > kMaxSweepMembers) fail(node, what + " has more than " + std::to_string(kMaxSweepMembers) + " values");
    hold_values(node, list.size());
    v.kind = "list";
    for (std::size_t i = 0; i < list.size(); ++i) {
      const toml::node& element = *list.get(i);
      v.texts.push_back(setting_text(element, what + " value " + std::to_string(i + 1)));
      v.cells.push_back(element.as_string() ? csv_cell(v.texts.back()) : v.texts.back());
      v.value_where.push_back(position_of(element));
    }
  }

  void read_generated(const toml::table& entry, const toml::node& node, const std::string& what, SweepVaried& v) {
    check_keys(entry, kVaryKeys, what);
    const auto require = [&](std::string_view key, const std::string& form) -> const toml::node& {
      const toml::node* n = entry.get(key);
      if (!n) fail(node, what + ": missing '" + std::string(key) + "' (" + form + ")");
      return *n;
    };
    const auto refuse = [&](std::initializer_list<std::string_view> keys, const std::string& form) {
      for (const auto k : keys)
        if (const auto* n = entry.get(k)) fail(*n, what + ": '" + std::string(k) + "' does not belong to " + form);
    };
    if (entry.get("values")) fail(*entry.get("values"), what + ": write a list of values as " + v.name + " = [a, b, ...]");
    const toml::node& count_node = require("count", "the number of values");
    const long count = count_value(count_node, what + " count");
    hold_values(count_node, static_cast<std::size_t>(count));
    std::vector<double> values;
    if (const auto* random_node = entry.get("random")) {
      const std::string kind = string_value(*random_node, what + " random");
      refuse({"from", "to"}, "random samples (low/high or mean/sd)");
      if (!spec_.seed)
        fail(*random_node, what + ": random samples need a seed: add seed = <integer> to [sweep]");
      const auto stream = static_cast<std::uint64_t>(spec_.vary.size());
      if (kind == "uniform" || kind == "sobol") {
        refuse({"mean", "sd"}, kind + " samples (low, high)");
        const std::string form = kind + " samples between low and high";
        const double low = number_value(require("low", form), what + " low");
        const double high = number_value(require("high", form), what + " high");
        if (!(low < high)) fail(*entry.get("high"), what + ": high must be greater than low");
        v.parameters = {low, high};
        if (kind == "uniform") {
          values = uniform_samples(low, high, count, *spec_.seed, stream);
        } else {
          if (sobol_dimensions_ == kSobolDimensions)
            fail(*random_node, what + ": at most " + std::to_string(kSobolDimensions) + " names can be sobol samples");
          values = sobol_samples(low, high, count, sobol_dimensions_++);
        }
      } else if (kind == "normal") {
        refuse({"low", "high"}, "normal samples (mean, sd)");
        const std::string form = "normal samples of mean and sd";
        const double mean = number_value(require("mean", form), what + " mean");
        const double sd = positive_number(require("sd", form), what + " sd");
        v.parameters = {mean, sd};
        values = normal_samples(mean, sd, count, *spec_.seed, stream);
      } else {
        fail(*random_node, what + " random must be \"uniform\", \"normal\" or \"sobol\", not " + quote_for_message(kind));
      }
      v.kind = kind;
    } else {
      refuse({"low", "high", "mean", "sd"}, "a range (from, to, count)");
      const std::string form = "a range from = a, to = b, count = n";
      const double from = number_value(require("from", form), what + " from");
      const double to = number_value(require("to", form), what + " to");
      v.kind = "range";
      v.parameters = {from, to};
      values = evenly_spaced(from, to, count);
    }
    v.parameters.push_back(static_cast<double>(count));
    for (const double x : values) {
      v.texts.push_back(exact_text(x));
      v.cells.push_back(v.texts.back());
      v.value_where.push_back(position_of(node));
    }
  }

  void read_derived(const toml::table& table) {
    for (const auto& [key, value] : in_file_order(table)) {
      check_new_name(*key, "derived");
      const std::string name(key->str());
      if (name == "h") fail(*key, "'h' cannot be derived");
      spec_.derived.push_back(
          {name, position_of(key->source()), string_value(*value, "[derived] " + name), position_of(*value)});
    }
  }

  void read_sweep(const toml::table& table) {
    check_keys(table, kSweepKeys, "[sweep]");
    if (const auto* node = table.get("members")) fail(*node, "[sweep] members is counted from [vary], not given");
    if (const auto* node = table.get("combine")) {
      const std::string c = string_value(*node, "[sweep] combine");
      if (c != "grid" && c != "zip")
        fail(*node, "[sweep] combine must be \"grid\" or \"zip\", not " + quote_for_message(c));
      spec_.zip = c == "zip";
    }
    if (const auto* node = table.get("seed")) {
      const auto* i = node->as_integer();
      if (!i || i->get() < 0) fail(*node, "[sweep] seed must be a non-negative integer");
      spec_.seed = static_cast<std::uint64_t>(i->get());
    }
    spec_.record = {"final", "energy_error", "momentum_error", "steps", "cpu_s"};
    if (const auto* node = table.get("record")) {
      const auto* list = node->as_array();
      if (!list) fail(*node, "[sweep] record must be a list of names");
      spec_.record_where = position_of(*node);
      std::vector<std::string> asked;
      const auto& known = sweep_record_names();
      for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string name = string_value(*list->get(i), "[sweep] record value " + std::to_string(i + 1));
        if (std::find(known.begin(), known.end(), name) == known.end())
          fail(*list->get(i), "[sweep] record: unknown quantity " + quote_for_message(name) +
                                  model_file::did_you_mean(name, known) + " (known: " + model_file::join_names(known) + ")");
        if (std::find(asked.begin(), asked.end(), name) != asked.end())
          fail(*list->get(i), "[sweep] record: " + quote_for_message(name) + " is named twice");
        asked.push_back(name);
      }
      spec_.record.clear();
      for (const auto& name : known)
        if (std::find(asked.begin(), asked.end(), name) != asked.end()) spec_.record.push_back(name);
    }
    const toml::node* trajectories = table.get("trajectories");
    if (trajectories) spec_.trajectories = bool_value(*trajectories, "[sweep] trajectories");
    if (const auto* node = table.get("output_every")) {
      spec_.output_every = number_value(*node, "[sweep] output_every");
      if (!(spec_.output_every >= 0.0) || !std::isfinite(spec_.output_every))
        fail(*node, "[sweep] output_every must be zero or a positive number");
    }
    if (spec_.trajectories && !(spec_.output_every > 0.0))
      fail(*trajectories, "[sweep] trajectories = true needs output_every > 0: the interval of the rows kept (a "
                          "multiple of h)");
  }

  void count_members() {
    if (spec_.vary.empty()) {
      spec_.members = 1;  // the system as set: one member
      return;
    }
    if (spec_.zip) {
      const auto& first = spec_.vary.front();
      for (const auto& v : spec_.vary)
        if (v.texts.size() != first.texts.size())
          spec_.fail(v.where, "combine = \"zip\" needs as many values for every name: " + quote_for_message(v.name) +
                                  " has " + std::to_string(v.texts.size()) + ", " + quote_for_message(first.name) +
                                  " has " + std::to_string(first.texts.size()));
      spec_.members = first.texts.size();
      return;
    }
    std::size_t members = 1;
    for (const auto& v : spec_.vary) {
      if (members > kMaxSweepMembers / v.texts.size())
        spec_.fail(v.where, "the grid has more than " + std::to_string(kMaxSweepMembers) +
                                " members (the product of the counts of [vary]); use fewer values or combine = \"zip\"");
      members *= v.texts.size();
    }
    spec_.members = members;
  }

  const toml::table& root_;
  SweepSpec& spec_;
  int sobol_dimensions_ = 0;
  std::size_t values_held_ = 0;  ///< of [vary] so far (hold_values)
};

}  // namespace

std::string exact_text(double x) { return exact_number(x); }

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos && (text.empty() || text.front() != ' ')) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::vector<std::size_t> SweepSpec::value_indices(std::size_t m) const {
  std::vector<std::size_t> indices(vary.size());
  if (zip) {
    std::fill(indices.begin(), indices.end(), m);
    return indices;
  }
  for (std::size_t i = vary.size(); i-- > 0;) {
    indices[i] = m % vary[i].texts.size();
    m /= vary[i].texts.size();
  }
  return indices;
}

SweepSpec parse_sweep_text(std::string_view text, const std::string& file) {
  SweepSpec spec;
  spec.file = file;
  const toml::table root = model_file::parse_toml(text, file);
  Reader(root, spec).read();
  return spec;
}

SweepSpec read_sweep_file(const std::string& path) {
  return parse_sweep_text(model_file::read_input_file(path, "sweep file"), path);
}

}  // namespace mechint::app
