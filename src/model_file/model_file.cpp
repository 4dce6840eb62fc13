#include "model_file/model_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/diagnostics.hpp"
#include "model_file/expression_parser.hpp"
#include "model_file/nonholonomic_checks.hpp"
#include "model_file/toml_input.hpp"

namespace mechint::model_file {

namespace {

/// The top-level keys of DESIGN §6, in the order of its example (also the order of "known keys").
/// `domain` extends DESIGN §6 (docs/model-files.md, "Where the model is defined").
/// `draw` is DESIGN §11's drawing of the model (docs/animations.md); `time_scale` and `nonholonomic`
/// DESIGN §10's.
constexpr std::array<std::string_view, 19> kKeys = {
    "name",       "description", "coordinates", "periodic", "parameters", "lagrangian",
    "constraints", "unilateral", "symmetries",  "forces",   "controls",   "method",
    "h",          "initial",     "definitions", "domain",   "draw",       "time_scale",
    "nonholonomic"};

SourcePosition position_of(const toml::source_region& region) {
  const auto clamp = [](std::uint32_t x) { return static_cast<int>(std::min<std::uint32_t>(x, INT_MAX)); };
  return {clamp(region.begin.line), clamp(region.begin.column)};
}

/// "a string", "an integer", ...: the TOML type of a value, for "must be X, not Y".
std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

bool is_identifier(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || name.size() > kMaxNameLength || !letter(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || digit(c); });
}

/// The model's `name`: used in file and cache names, so letters first, then letters, digits, - and _.
bool is_model_name(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto other = [](char c) { return (c >= '0' && c <= '9') || c == '_' || c == '-'; };
  if (name.empty() || name.size() > kMaxNameLength || !letter(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || other(c); });
}

/// The raw text of the file, to tell whether a string value's characters sit at known columns
/// (toml++ gives only where a value starts, and its columns count code points, not bytes).
class SourceText {
 public:
  explicit SourceText(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  /// True when the string value `value` whose opening quote toml++ placed at `quote` is a one-line
  /// basic or literal string written exactly as `value` (no escape): then its byte i is at column
  /// quote.column + 1 + i. Verified against the text rather than assumed, so a surprise in
  /// toml++'s counting (a BOM, a tab) falls back to the value's start instead of a wrong column.
  bool is_plain_string(SourcePosition quote, std::string_view value) const {
    const std::optional<std::size_t> at = byte_offset(quote);
    if (!at) return false;
    const std::string_view rest = text_.substr(*at);
    if (rest.empty() || (rest[0] != '"' && rest[0] != '\'')) return false;
    const char q = rest[0];
    if (rest.size() >= 3 && rest[1] == q && rest[2] == q) return false;  // multi-line string
    return rest.size() >= value.size() + 2 && rest.substr(1, value.size()) == value && rest[value.size() + 1] == q;
  }

 private:
  /// Byte offset of a (line, code-point column) position. Values of an array are looked up in
  /// order, so the walk resumes from the previous answer on the same line: hostile files with
  /// thousands of values on one long line stay linear.
  std::optional<std::size_t> byte_offset(SourcePosition p) const {
    if (p.line < 1 || p.column < 1 || static_cast<std::size_t>(p.line) > line_starts_.size()) return std::nullopt;
    std::size_t offset = line_starts_[p.line - 1];
    int column = 1;
    if (last_.line == p.line && last_.column <= p.column) {
      offset = last_offset_;
      column = last_.column;
    }
    while (column < p.column && offset < text_.size() && text_[offset] != '\n') {
      ++offset;
      // Skip UTF-8 continuation bytes: a code point is one column.
      while (offset < text_.size() && (static_cast<unsigned char>(text_[offset]) & 0xC0) == 0x80) ++offset;
      ++column;
    }
    if (column != p.column || offset >= text_.size()) return std::nullopt;
    last_ = p;
    last_offset_ = offset;
    return offset;
  }

  std::string_view text_;
  std::vector<std::size_t> line_starts_;
  mutable SourcePosition last_;  // cache of byte_offset, see there
  mutable std::size_t last_offset_ = 0;
};

/// Reads one parsed TOML document into a ModelDescription, checking as it goes.
class Reader {
 public:
  Reader(std::string_view text, const std::string& file, const toml::table& root)
      : source_(text), file_(file), root_(root) {}

  ModelDescription read() {
    check_keys();
    model_.file = file_;
    read_name();
    read_coordinates();
    read_parameters();
    read_controls();
    read_periodic();
    read_initial();
    read_method_and_step();
    read_expressions();
    read_draw();
    return std::move(model_);
  }

 private:
  // --- errors and typed access ---------------------------------------------------------------

  [[noreturn]] void fail(SourcePosition where, std::string_view what) const { fail_at(file_, where, what); }
  [[noreturn]] void fail(const toml::node& node, std::string_view what) const { fail(position_of(node.source()), what); }

  [[noreturn]] void fail_type(const toml::node& node, std::string_view what, std::string_view expected) const {
    fail(node, std::string(what) + " must be " + std::string(expected) + ", not " + type_name(node));
  }

  const toml::node* find(std::string_view key) const { return root_.get(key); }

  const toml::node& require(std::string_view key, std::string_view meaning) const {
    const toml::node* node = find(key);
    if (!node) fail({1, 1}, "missing required key '" + std::string(key) + "' (" + std::string(meaning) + ")");
    return *node;
  }

  std::string string_value(const toml::node& node, std::string_view what) const {
    const auto* s = node.as_string();
    if (!s) fail_type(node, what, "a string");
    return s->get();
  }

  const toml::array& array_value(const toml::node& node, std::string_view what, std::string_view of) const {
    const auto* a = node.as_array();
    if (!a) fail_type(node, what, "an array of " + std::string(of));
    return *a;
  }

  const toml::table& table_value(const toml::node& node, std::string_view what, std::string_view example) const {
    const auto* t = node.as_table();
    if (!t) fail_type(node, what, "a table (" + std::string(example) + ")");
    return *t;
  }

  /// A finite number; TOML integers are converted to double.
  double number_value(const toml::node& node, std::string_view what) const {
    if (const auto* i = node.as_integer()) return static_cast<double>(i->get());
    const auto* f = node.as_floating_point();
    if (!f) fail_type(node, what, "a number");
    if (!std::isfinite(f->get())) fail(node, std::string(what) + " must be a finite number, not " + format_number(f->get()));
    return f->get();
  }

  /// The entries of a table in the order of the file (toml++ keeps them sorted by name).
  static std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& table) {
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (const auto& [key, value] : table) entries.emplace_back(&key, &value);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const auto pa = a.first->source().begin;
      const auto pb = b.first->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return entries;
  }

  // --- [draw] (DESIGN §11) ---------------------------------------------------------------------

  /// `[draw]`: points = { NAME = ["x(q)", "y(q)"(, "z(q)")] }, fixed = { NAME = [x, y(, z)] },
  /// links = [["a", "b"], ...]; every point with the same number of components (2 or 3), names
  /// distinct, links between names declared here.
  void read_draw() {
    const toml::node* node = find("draw");
    if (!node) return;
    const toml::table& table = table_value(*node, "draw", "points = {...}, fixed = {...}, links = [...]");
    DrawDescription draw;
    std::map<std::string, std::string> taken;  // name -> "a point" / "a fixed point"
    const auto dimension_of = [&](const toml::node& where, std::size_t size, const std::string& what) {
      if (size != 2 && size != 3) fail(where, what + " has " + count_of(size, "component") + "; it needs 2 or 3");
      if (draw.dimension == 0) draw.dimension = static_cast<int>(size);
      if (static_cast<int>(size) != draw.dimension)
        fail(where, what + " has " + count_of(size, "component") + " but the drawing's first point has " +
                        std::to_string(draw.dimension) + ": a drawing is all in 2D or all in 3D");
    };
    const auto name_of = [&](const toml::key& key, const std::string& kind) {
      const std::string name(key.str());
      if (!is_identifier(name)) fail(position_of(key.source()), kind + " name " + quote_for_message(name) + " is not an identifier");
      if (const auto it = taken.find(name); it != taken.end())
        fail(position_of(key.source()), kind + " name " + quote_for_message(name) + " is already " + it->second);
      taken.emplace(name, "the name of a " + kind);
      return name;
    };
    for (const auto& [key, value] : in_file_order(table)) {
      const std::string k(key->str());
      if (k != "points" && k != "fixed" && k != "links")
        fail(position_of(key->source()), "unknown key " + quote_for_message(k) + " in draw (known: points, fixed, links)");
    }
    const toml::node* points = table.get("points");
    if (!points) fail(*node, "draw needs points = { NAME = [\"x(q)\", \"y(q)\"], ... }");
    for (const auto& [key, value] : in_file_order(table_value(*points, "draw.points", "NAME = [\"x(q)\", \"y(q)\"]"))) {
      const std::string name = name_of(*key, "point");
      const std::string what = "draw.points." + name;
      const toml::array& array = array_value(*value, what, "2 or 3 expressions");
      dimension_of(*value, array.size(), "point " + quote_for_message(name));
      draw.points.push_back({name, expressions(*value, ExpressionContext::kDrawing, what)});
    }
    if (draw.points.empty()) fail(*points, "draw.points is empty: a drawing needs a point that moves");
    if (const toml::node* fixed = table.get("fixed")) {
      for (const auto& [key, value] : in_file_order(table_value(*fixed, "draw.fixed", "NAME = [x, y]"))) {
        const std::string name = name_of(*key, "fixed point");
        const std::string what = "draw.fixed." + name;
        const toml::array& array = array_value(*value, what, "2 or 3 numbers");
        dimension_of(*value, array.size(), "fixed point " + quote_for_message(name));
        DrawDescription::Fixed f{name, {}};
        for (const auto& x : array) f.position.push_back(number_value(x, what));
        draw.fixed.push_back(std::move(f));
      }
    }
    if (const toml::node* links = table.get("links")) {
      for (const auto& link : array_value(*links, "draw.links", "pairs of names, like [\"pivot\", \"bob\"]")) {
        const toml::array& pair = array_value(link, "each link", "two names");
        if (pair.size() != 2) fail(link, "a link names two points, like [\"pivot\", \"bob\"]; this one has " +
                                             count_of(pair.size(), "name"));
        std::array<std::string, 2> ends;
        for (std::size_t i = 0; i < 2; ++i) {
          ends[i] = string_value(*pair.get(i), "a link's end");
          if (!taken.count(ends[i])) {
            std::vector<std::string> known;
            for (const auto& [n, kind] : taken) known.push_back(n);
            fail(*pair.get(i), "link end " + quote_for_message(ends[i]) + " is not a point of draw" +
                                   known_or_guess(ends[i], known));
          }
        }
        draw.links.emplace_back(ends[0], ends[1]);
      }
    }
    model_.draw = std::move(draw);
  }

  // --- names -------------------------------------------------------------------------------------

  static bool is_output_column(const std::string& name) { return is_output_column_name(name); }


  /// Checks that `name` (a `kind` such as "coordinate", declared at `where`) is an identifier that
  /// shadows nothing and is not taken, then records it.
  void declare(const std::string& name, SourcePosition where, const std::string& kind) {
    const std::string quoted = quote_for_message(name);
    if (!is_identifier(name)) {
      fail(where, kind + " name " + quoted + " is not an identifier (a letter or '_', then letters, digits and '_', " +
                      "at most " + std::to_string(kMaxNameLength) + " characters)");
    }
    if (std::find(kFunctionNames.begin(), kFunctionNames.end(), name) != kFunctionNames.end()) {
      fail(where, kind + " name " + quoted + " shadows the function " + name + "()");
    }
    if (name == "pi") fail(where, kind + " name 'pi' shadows the constant pi");
    if (name == "t") fail(where, kind + " name 't' shadows the time t");
    if (is_output_column(name))
      fail(where, kind + " name " + quoted + " is the name of an output column (t, energy, J1..., J1_work..., " +
                      "constraint_residual, lambda1..., nonholonomic_residual, mu1..., u1..., megno, lyapunov, fli, " +
                      "discrete_energy, energy_fallbacks, impacts, htilde): the CSV would have two columns of that name");
    if (const auto taken = taken_.find(name); taken != taken_.end()) {
      fail(where, kind + " name " + quoted + " is already " + taken->second);
    }
    taken_.emplace(name, "the name of a " + kind);
  }

  /// An array of names, each checked by declare().
  std::vector<std::string> declare_names(const toml::node& node, std::string_view key, const std::string& kind) {
    const toml::array& array = array_value(node, key, "names (strings)");
    std::vector<std::string> names;
    for (const auto& element : array) {
      const std::string name = string_value(element, "each element of " + std::string(key));
      declare(name, position_of(element.source()), kind);
      names.push_back(name);
    }
    return names;
  }

  void check_keys() const {
    const std::vector<std::string> known(kKeys.begin(), kKeys.end());
    for (const auto& [key, value] : in_file_order(root_)) {
      if (std::find(kKeys.begin(), kKeys.end(), key->str()) != kKeys.end()) continue;
      const std::string guess = did_you_mean(key->str(), known);
      fail(position_of(key->source()),
           "unknown key " + quote_for_message(key->str()) +
               (guess.empty() ? " (known keys: " + join_names(known) + ")" : guess));
    }
  }

  void read_name() {
    const toml::node& node = require("name", "the model's name, like \"cart-pole\"");
    model_.name = string_value(node, "name");
    if (!is_model_name(model_.name)) {
      fail(node, "name " + quote_for_message(model_.name) + " must start with a letter and hold only letters, digits, " +
                     "'-' and '_' (at most " + std::to_string(kMaxNameLength) + " characters)");
    }
    if (const toml::node* d = find("description")) model_.description = string_value(*d, "description");
  }

  void read_coordinates() {
    const toml::node& node = require("coordinates", "the names of the generalized coordinates, like [\"x\", \"th\"]");
    const toml::array& array = array_value(node, "coordinates", "names (strings)");
    if (array.empty()) fail(node, "coordinates must name at least one coordinate");
    if (array.size() > kMaxCoordinates) {
      fail(node, std::to_string(array.size()) + " coordinates: at most " + std::to_string(kMaxCoordinates) + " are supported");
    }
    for (const auto& element : array) {
      const std::string name = string_value(element, "each coordinate");
      const SourcePosition where = position_of(element.source());
      if (name.size() > 4 && name.ends_with("_dot") && is_identifier(name)) {
        fail(where, "coordinate name " + quote_for_message(name) + " ends in _dot, which names velocities");
      }
      declare(name, where, "coordinate");
      taken_.emplace(name + "_dot", "the velocity of coordinate " + name);
      model_.coordinates.push_back(name);
    }
  }

  void read_parameters() {
    const toml::node* node = find("parameters");
    if (!node) return;
    const toml::table& table = table_value(*node, "parameters", "like { m = 1.0, g = 9.81 }");
    for (const auto& [key, value] : in_file_order(table)) {
      const std::string name(key->str());
      declare(name, position_of(key->source()), "parameter");
      const double x = number_value(*value, "parameter " + name);
      model_.parameters.push_back({name, x, position_of(key->source())});
    }
  }

  void read_controls() {
    const toml::node* node = find("controls");
    if (!node) return;
    model_.controls = declare_names(*node, "controls", "control");
  }

  void read_periodic() {
    const std::size_t n = model_.coordinates.size();
    model_.periodic.assign(n, false);
    const toml::node* node = find("periodic");
    if (!node) return;
    for (const auto& element : array_value(*node, "periodic", "coordinate names")) {
      const std::string name = string_value(element, "each element of periodic");
      const auto it = std::find(model_.coordinates.begin(), model_.coordinates.end(), name);
      if (it == model_.coordinates.end()) {
        fail(element, "periodic: " + quote_for_message(name) + " is not a coordinate" +
                          known_or_guess(name, model_.coordinates));
      }
      const auto i = static_cast<std::size_t>(it - model_.coordinates.begin());
      if (model_.periodic[i]) fail(element, "periodic: coordinate " + name + " is listed twice");
      model_.periodic[i] = true;
    }
  }

  void read_initial() {
    const std::size_t n = model_.coordinates.size();
    model_.initial_q.assign(n, 0.0);
    model_.initial_v.assign(n, 0.0);
    const toml::node* node = find("initial");
    if (!node) return;
    const toml::table& table = table_value(*node, "initial", "coordinates and NAME_dot velocities by name");
    std::vector<std::string> known = model_.coordinates;
    for (const auto& q : model_.coordinates) known.push_back(q + "_dot");
    for (const auto& [key, value] : in_file_order(table)) {
      const std::string name(key->str());
      const auto it = std::find(known.begin(), known.end(), name);
      if (it == known.end()) {
        fail(position_of(key->source()), "unknown name " + quote_for_message(name) +
                                             " in [initial], which sets coordinates and their NAME_dot velocities" +
                                             known_or_guess(name, known));
      }
      const auto i = static_cast<std::size_t>(it - known.begin());
      const double x = number_value(*value, "initial " + name);
      (i < n ? model_.initial_q[i] : model_.initial_v[i - n]) = x;
    }
  }

  void read_method_and_step() {
    if (const toml::node* node = find("method")) {
      model_.method = string_value(*node, "method");
      model_.method_position = position_of(node->source());
    }
    if (const toml::node* node = find("h")) {
      const double h = number_value(*node, "h");
      if (!(h > 0.0)) fail(*node, "h must be positive, not " + format_number(h));
      model_.h = h;
    }
  }

  /// " (known: a, b)" for a short list, else " (did you mean 'x'?)" or "".
  static std::string known_or_guess(std::string_view name, const std::vector<std::string>& known) {
    constexpr std::size_t kListedNames = 12;
    if (known.size() <= kListedNames) return " (known: " + join_names(known) + ")";
    return did_you_mean(name, known);
  }

  // --- expressions -------------------------------------------------------------------------------

  Expression expression(const toml::node& node, ExpressionContext context, std::string_view what) {
    const std::string text = string_value(node, what);
    ExpressionSource source;
    source.text = text;
    source.start = position_of(node.source());
    source.exact_columns = source_.is_plain_string(source.start, text);
    return parse_expression(source, symbols_, context, file_);
  }

  std::vector<Expression> expressions(const toml::node& node, ExpressionContext context, const std::string& what) {
    const toml::array& array = array_value(node, what, "expressions (strings)");
    std::vector<Expression> result;
    for (std::size_t i = 0; i < array.size(); ++i) {
      result.push_back(expression(*array.get(i), context, what + "[" + std::to_string(i) + "]"));
    }
    return result;
  }

  /// "1 component", "2 components".
  static std::string count_of(std::size_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  }

  std::string coordinate_list() const {
    const std::size_t n = model_.coordinates.size();
    return std::to_string(n) + (n == 1 ? " coordinate: " : " coordinates: ") + join_names(model_.coordinates);
  }

  /// `[definitions]` (DESIGN §6): named expressions in file order, each using the names above it.
  /// Every name (and its NAME_dot) is declared first, so that a name used above its definition is
  /// told apart from an unknown one; each is then read and substituted wherever it is used.
  void read_definitions() {
    const toml::node* node = find("definitions");
    if (!node) return;
    const toml::table& table = table_value(*node, "definitions", "named expressions, like bob_x = \"x + l*sin(th)\"");
    const auto entries = in_file_order(table);
    for (const auto& [key, value] : entries) {
      const std::string name(key->str());
      const SourcePosition where = position_of(key->source());
      if (name.size() > 4 && name.ends_with("_dot") && is_identifier(name)) {
        fail(where, "definition name " + quote_for_message(name) + " ends in _dot, which names time derivatives " +
                        "(a definition free of velocities gets NAME_dot by itself)");
      }
      declare(name, where, "definition");
      if (const auto taken = taken_.find(name + "_dot"); taken != taken_.end()) {
        fail(where, "definition name " + quote_for_message(name) + ": its time derivative " + name + "_dot is already " +
                        taken->second);
      }
      taken_.emplace(name + "_dot", "the time derivative of definition " + name);
      symbols_.declare_definition(name, where);
    }
    for (const auto& [key, value] : entries) {
      const std::string name(key->str());
      symbols_.define(name, expression(*value, ExpressionContext::kDefinition, "definition " + name));
    }
  }

  void read_expressions() {
    const std::size_t n = model_.coordinates.size();
    std::vector<std::string> parameters;
    for (const auto& p : model_.parameters) parameters.push_back(p.name);
    symbols_ = SymbolTable(model_.coordinates, std::move(parameters), model_.controls);
    read_definitions();

    const toml::node& lagrangian = require("lagrangian", "L(q, q_dot) as an expression");
    model_.lagrangian = expression(lagrangian, ExpressionContext::kLagrangian, "lagrangian");
    if (!uses_symbol(model_.lagrangian, SymbolKind::kVelocity)) {
      fail(lagrangian, "the Lagrangian does not depend on any velocity (NAME_dot): it has no kinetic energy");
    }

    if (const toml::node* node = find("constraints")) {
      // Checked before parsing: n constraints or more leave no motion to integrate.
      const toml::array& array = array_value(*node, "constraints", "expressions (strings)");
      if (array.size() >= n) {
        fail(*node, count_of(array.size(), "constraint") + " for " + coordinate_list() +
                        " (constraints must be fewer than coordinates, or nothing can move)");
      }
      model_.constraints = expressions(*node, ExpressionContext::kConstraint, "constraints");
    }
    if (const toml::node* node = find("unilateral")) {
      model_.unilateral = expressions(*node, ExpressionContext::kUnilateral, "unilateral");
    }
    if (const toml::node* node = find("domain")) {
      model_.domain = expressions(*node, ExpressionContext::kDomain, "domain");
      for (const auto& element : array_value(*node, "domain", "expressions (strings)")) {
        model_.domain_text.push_back(string_value(element, "domain"));
        model_.domain_positions.push_back(position_of(element.source()));
      }
    }
    if (const toml::node* node = find("time_scale")) {
      model_.time_scale = expression(*node, ExpressionContext::kTimeScale, "time_scale");
      if (!model_.forces.empty() || find("forces"))
        fail(*node, "time_scale (adapt=sundman) applies to models without forces: they depend on the physical time");
    }
    if (const toml::node* node = find("symmetries")) {
      const toml::array& array = array_value(*node, "symmetries", "generators (arrays of expressions)");
      for (std::size_t k = 0; k < array.size(); ++k) {
        const toml::node& generator = *array.get(k);
        const std::string what = "symmetries[" + std::to_string(k) + "]";
        const toml::array& components = array_value(generator, what, "expressions, one per coordinate");
        if (components.size() != n) {
          fail(generator, "symmetry generator " + std::to_string(k + 1) + " has " + count_of(components.size(), "component") +
                              "; it needs one per coordinate (" + coordinate_list() + ")");
        }
        model_.symmetries.push_back(expressions(generator, ExpressionContext::kSymmetry, what));
      }
    }
    if (const toml::node* node = find("forces")) {
      const toml::array& array = array_value(*node, "forces", "expressions (strings)");
      if (!array.empty() && array.size() != n) {
        fail(*node, "forces has " + count_of(array.size(), "expression") + "; it needs one per coordinate (" +
                        coordinate_list() + "), or none");
      }
      model_.forces = expressions(*node, ExpressionContext::kForce, "forces");
    }
    // The impact driver (004 §III) integrates conservative models: no method would take this file.
    if (!model_.forces.empty() && !model_.unilateral.empty())
      fail(*find("forces"), "forces and unilateral constraints together are not supported: the impact driver "
                            "integrates conservative models only");
    // Controls act only through the forces: without forces they would be names that change nothing.
    if (model_.forces.empty() && !model_.controls.empty())
      fail(*find("controls"), "controls are declared but there are no forces to use them (forces = [...], one per "
                              "coordinate)");
    read_nonholonomic();
  }

  /// `nonholonomic` (DESIGN §10): a_i(q)·q_dot = 0, each linear in the velocities; with the integrator
  /// of kernel/nonholonomic_integrator.hpp, which takes holonomic constraints alongside, but no walls,
  /// domain or forces.
  void read_nonholonomic() {
    const toml::node* node = find("nonholonomic");
    if (!node) return;
    const toml::array& array = array_value(*node, "nonholonomic", "expressions (strings) linear in the velocities");
    const std::size_t n = model_.coordinates.size();
    if (array.size() + model_.constraints.size() >= n) {
      fail(*node, count_of(array.size(), "nonholonomic constraint") +
                      (model_.constraints.empty() ? std::string()
                                                  : " and " + count_of(model_.constraints.size(), "holonomic constraint")) +
                      " for " + coordinate_list() + " (they must be fewer than coordinates, or nothing can move)");
    }
    const auto refuse_with = [&](const char* key, const char* what) {
      fail(*find(key), std::string(what) + " and nonholonomic constraints in one model are not supported: the "
                                           "discrete Lagrange-d'Alembert integrator (docs/nonholonomic.md) takes "
                                           "nonholonomic constraints alone");
    };
    if (!model_.unilateral.empty()) refuse_with("unilateral", "unilateral constraints");
    if (!model_.domain.empty()) refuse_with("domain", "a domain");
    if (!model_.forces.empty()) refuse_with("forces", "forces");
    if (model_.time_scale) refuse_with("time_scale", "a time scale (adapt=sundman)");
    model_.nonholonomic = expressions(*node, ExpressionContext::kNonholonomic, "nonholonomic");
    for (const Expression& e : model_.nonholonomic)
      if (const auto defect = nonholonomic_defect(e)) fail(defect->where, defect->what);
  }

  SourceText source_;
  const std::string& file_;
  const toml::table& root_;
  ModelDescription model_;
  SymbolTable symbols_;
  /// Every name declared so far (and NAME_dot of each coordinate and definition), with what it names.
  std::map<std::string, std::string, std::less<>> taken_;
};

}  // namespace

ModelDescription parse_model_text(std::string_view text, const std::string& file_label) {
  const toml::table root = parse_toml(text, file_label);
  return Reader(text, file_label, root).read();
}

ModelDescription read_model_file(const std::string& path) {
  return parse_model_text(read_input_file(path, "model file"), path);
}

/// A column that `run` writes besides the coordinates (DESIGN §4, §6, §9, §10): energy,
/// constraint_residual, nonholonomic_residual, the chaos indicators, adapt=energy's and the impact
/// driver's columns, J<k>_work, and J<k>, lambda<k>, mu<k>, u<k> for k = 1, 2, ...
bool is_output_column_name(const std::string& name) {
  for (const char* column : {"energy", "constraint_residual", "nonholonomic_residual", "megno", "lyapunov", "fli",
                             "discrete_energy", "energy_fallbacks", "impacts", "htilde"})
    if (name == column) return true;
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_work") == 0 && is_output_column_name(name.substr(0, name.size() - 5)))
    return true;
  for (const std::string prefix : {"J", "lambda", "mu", "u"}) {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits[0] != '0' && digits.find_first_not_of("0123456789") == std::string::npos) return true;
  }
  return false;
}

bool is_reserved_name(const std::string& name) {
  if (std::find(kFunctionNames.begin(), kFunctionNames.end(), name) != kFunctionNames.end()) return true;
  return name == "pi" || name == "t" || is_output_column_name(name);
}

bool is_model_file_name(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0;
}

}  // namespace mechint::model_file
