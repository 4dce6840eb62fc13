#include "model_file/expression_parser.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <unordered_set>
#include <vector>

#include "mechint/core/format.hpp"
#include "model_file/diagnostics.hpp"

namespace mechint::model_file {

SourcePosition ExpressionSource::position_of(std::size_t offset) const {
  if (!exact_columns) return start;
  return {start.line, start.column + 1 + static_cast<int>(offset)};
}

SymbolTable::SymbolTable(std::vector<std::string> coordinates, std::vector<std::string> parameters,
                         std::vector<std::string> controls)
    : coordinates_(std::move(coordinates)), parameters_(std::move(parameters)), controls_(std::move(controls)) {
  // emplace keeps the first entry of a name; the reader refuses duplicates before this point.
  for (std::size_t i = 0; i < coordinates_.size(); ++i) {
    index_.emplace(coordinates_[i], Symbol{SymbolKind::kCoordinate, static_cast<int>(i)});
    index_.emplace(coordinates_[i] + "_dot", Symbol{SymbolKind::kVelocity, static_cast<int>(i)});
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    index_.emplace(parameters_[i], Symbol{SymbolKind::kParameter, static_cast<int>(i)});
  }
  for (std::size_t i = 0; i < controls_.size(); ++i) {
    index_.emplace(controls_[i], Symbol{SymbolKind::kControl, static_cast<int>(i)});
  }
  index_.emplace("t", Symbol{SymbolKind::kTime, 0});
}

std::optional<SymbolTable::Symbol> SymbolTable::find(std::string_view name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void SymbolTable::declare_definition(const std::string& name, SourcePosition where) {
  Definition d;
  d.name = name;
  d.position = where;
  definition_index_.emplace(name, definitions_.size());
  definitions_.push_back(std::move(d));
}

void SymbolTable::define(const std::string& name, Expression value) {
  Definition& d = definitions_.at(definition_index_.at(name));
  d.size = symbolic::measure(value);
  d.value = std::move(value);
  d.defined = true;
}

const SymbolTable::Definition* SymbolTable::find_definition(std::string_view name) const {
  const auto it = definition_index_.find(name);
  return it == definition_index_.end() ? nullptr : &definitions_[it->second];
}

const SymbolTable::Definition* SymbolTable::definition_being_read() const {
  for (const auto& d : definitions_) {
    if (!d.defined) return &d;
  }
  return nullptr;
}

std::vector<std::string> SymbolTable::defined_names() const {
  std::vector<std::string> names;
  for (const auto& d : definitions_) {
    if (d.defined) names.push_back(d.name);
  }
  return names;
}

bool uses_symbol(const Expression& expression, SymbolKind kind) {
  // Each distinct node once: an expression with definitions is a DAG (model_description.hpp).
  std::unordered_set<const Expression*> seen;
  std::vector<const Expression*> stack{&expression};
  while (!stack.empty()) {
    const Expression* e = stack.back();
    stack.pop_back();
    if (e->kind == Expression::Kind::kSymbol && e->symbol == kind) return true;
    for (const auto& a : e->args)
      if (seen.insert(&a).second) stack.push_back(&a);
  }
  return false;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Errors

/// Turns a byte offset of the expression into a `FILE:LINE:COLUMN` error.
class Reporter {
 public:
  Reporter(const ExpressionSource& source, const std::string& file) : source_(source), file_(file) {}

  [[noreturn]] void fail(std::size_t offset, std::string_view what) const { fail_at(file_, position(offset), what); }

  SourcePosition position(std::size_t offset) const { return source_.position_of(offset); }

 private:
  const ExpressionSource& source_;
  const std::string& file_;
};

// ---------------------------------------------------------------------------------------------
// Tokens

struct Token {
  enum class Kind { kNumber, kName, kPlus, kMinus, kStar, kSlash, kCaret, kComma, kOpen, kClose, kEnd };
  Kind kind = Kind::kEnd;
  std::size_t offset = 0;  ///< of its first byte in the expression
  std::string_view text;
  double number = 0.0;  ///< kNumber only
};

// The character classes, spelt out rather than <cctype>: those depend on the locale and are
// undefined for negative chars, and the grammar is ASCII.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
// Line breaks count as spaces: a long Lagrangian may be written as a TOML multi-line string.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// How a token is named in messages.
std::string describe(const Token& token) {
  switch (token.kind) {
    case Token::Kind::kEnd:
      return "the end of the expression";
    case Token::Kind::kNumber:
      return "number " + quote_for_message(token.text);
    case Token::Kind::kName:
      return "name " + quote_for_message(token.text);
    default:
      return quote_for_message(token.text);
  }
}

bool is_binary_operator(Token::Kind kind) {
  return kind == Token::Kind::kPlus || kind == Token::Kind::kMinus || kind == Token::Kind::kStar ||
         kind == Token::Kind::kSlash || kind == Token::Kind::kCaret;
}

/// True when the decimal number `text` (as the tokenizer accepted it) is at least 1 in magnitude,
/// i.e. when from_chars' out-of-range means overflow rather than underflow.
bool magnitude_at_least_one(std::string_view text) {
  const std::size_t e = text.find_first_of("eE");
  const std::string_view mantissa = text.substr(0, e);
  long exponent = 0;
  if (e != std::string_view::npos) {
    std::size_t i = e + 1;
    const bool negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    // Saturate: only the sign of the final magnitude matters and the text is at most 10000 bytes.
    for (; i < text.size(); ++i) exponent = std::min(exponent * 10 + (text[i] - '0'), 1000000L);
    if (negative) exponent = -exponent;
  }
  // Decimal exponent of the first non-zero digit of the mantissa.
  const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
  const std::size_t first = mantissa.find_first_of("123456789");
  if (first == std::string_view::npos) return false;  // zero never overflows
  const long lead = first < point ? static_cast<long>(point - first - 1) : -static_cast<long>(first - point);
  return lead + exponent >= 0;
}

/// Reads the number starting at `begin` (a digit, or '.' followed by a digit).
Token read_number(std::string_view text, std::size_t begin, const Reporter& report) {
  std::size_t i = begin;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && is_digit(text[j])) {
      i = j;
      while (i < text.size() && is_digit(text[i])) ++i;
    }
  }
  if (i < text.size() && (is_name_char(text[i]) || text[i] == '.')) {
    // "2x", "1e", "1.2.3": not a number, and not two tokens either (a missing '*' is an error).
    std::size_t end = i;
    while (end < text.size() && (is_name_char(text[end]) || text[end] == '.')) ++end;
    report.fail(begin, "malformed number " + quote_for_message(text.substr(begin, end - begin)) +
                           " (a number is digits with an optional fraction and exponent, like 2.5e-3; "
                           "write 2*x for a product)");
  }
  Token token{Token::Kind::kNumber, begin, text.substr(begin, i - begin), 0.0};
  const auto [end, error] = std::from_chars(text.data() + begin, text.data() + i, token.number);
  if (error == std::errc::result_out_of_range) {
    if (magnitude_at_least_one(token.text)) {
      report.fail(begin, "number " + quote_for_message(token.text) + " is not finite (it exceeds the range of a double)");
    }
    token.number = 0.0;  // underflow: the nearest double is zero
  } else if (error != std::errc() || end != text.data() + i || !std::isfinite(token.number)) {
    report.fail(begin, "malformed number " + quote_for_message(token.text));
  }
  return token;
}

std::optional<Token::Kind> operator_kind(char c) {
  switch (c) {
    case '+': return Token::Kind::kPlus;
    case '-': return Token::Kind::kMinus;
    case '*': return Token::Kind::kStar;
    case '/': return Token::Kind::kSlash;
    case '^': return Token::Kind::kCaret;
    case ',': return Token::Kind::kComma;
    case '(': return Token::Kind::kOpen;
    case ')': return Token::Kind::kClose;
    default: return std::nullopt;
  }
}

/// Splits the text into tokens, ending with a kEnd token; fails on the first byte outside the grammar.
std::vector<Token> tokenize(std::string_view text, const Reporter& report) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_space(c)) {
      ++i;
    } else if (is_digit(c) || (c == '.' && i + 1 < text.size() && is_digit(text[i + 1]))) {
      tokens.push_back(read_number(text, i, report));
      i += tokens.back().text.size();
    } else if (is_name_start(c)) {
      std::size_t end = i;
      while (end < text.size() && is_name_char(text[end])) ++end;
      tokens.push_back({Token::Kind::kName, i, text.substr(i, end - i), 0.0});
      i = end;
    } else if (const auto kind = operator_kind(c)) {
      tokens.push_back({*kind, i, text.substr(i, 1), 0.0});
      ++i;
    } else {
      report.fail(i, "character " + quote_for_message(text.substr(i, 1)) +
                         " is not allowed in an expression (numbers, names, + - * / ^, parentheses and "
                         "commas only)");
    }
  }
  tokens.push_back({Token::Kind::kEnd, text.size(), {}, 0.0});
  return tokens;
}

/// Fails on the first ')' without a '(' or, at the end, on the innermost '(' left open, so that
/// the message points at the parenthesis itself rather than where the parser noticed.
void check_parentheses(const std::vector<Token>& tokens, const Reporter& report) {
  std::vector<std::size_t> open;
  for (const auto& token : tokens) {
    if (token.kind == Token::Kind::kOpen) {
      open.push_back(token.offset);
    } else if (token.kind == Token::Kind::kClose) {
      if (open.empty()) report.fail(token.offset, "unbalanced parenthesis: ')' without a matching '('");
      open.pop_back();
    }
  }
  if (!open.empty()) report.fail(open.back(), "unbalanced parenthesis: '(' is never closed");
}

// ---------------------------------------------------------------------------------------------
// Names

std::string context_name(ExpressionContext context) {
  switch (context) {
    case ExpressionContext::kLagrangian: return "the Lagrangian";
    case ExpressionContext::kConstraint: return "a constraint";
    case ExpressionContext::kUnilateral: return "a unilateral constraint";
    case ExpressionContext::kSymmetry: return "a symmetry generator";
    case ExpressionContext::kForce: return "a force";
    case ExpressionContext::kDomain: return "the domain";
    case ExpressionContext::kDefinition: return "a definition";
    case ExpressionContext::kDrawing: return "a drawing";
    case ExpressionContext::kTimeScale: return "the time scale";
    case ExpressionContext::kNonholonomic: return "a nonholonomic constraint";
  }
  return "an expression";
}

/// "constraints depend on coordinates only" and the like: why a velocity, a control or t is refused.
std::string coordinates_only(ExpressionContext context) {
  switch (context) {
    case ExpressionContext::kConstraint: return "constraints depend on coordinates only";
    case ExpressionContext::kUnilateral: return "unilateral constraints depend on coordinates only";
    case ExpressionContext::kSymmetry: return "symmetry generators depend on coordinates only";
    case ExpressionContext::kDomain: return "the domain depends on coordinates only";
    case ExpressionContext::kDrawing: return "a drawing places its points by coordinates only";
    case ExpressionContext::kTimeScale: return "the time scale depends on coordinates only";
    case ExpressionContext::kNonholonomic: return "nonholonomic constraints depend on coordinates and velocities only";
    default: return "";
  }
}

std::optional<Function> find_function(std::string_view name) {
  for (std::size_t i = 0; i < kFunctionNames.size(); ++i) {
    if (kFunctionNames[i] == name) return static_cast<Function>(i);
  }
  return std::nullopt;
}

/// The index of the first symbol of `kind` in `e` (depth first, left to right), without recursion,
/// each distinct node once (a node met again was searched already, without a find).
std::optional<int> first_symbol(const Expression& e, SymbolKind kind) {
  std::unordered_set<const Expression*> seen;
  std::vector<const Expression*> stack{&e};
  while (!stack.empty()) {
    const Expression* node = stack.back();
    stack.pop_back();
    if (node->kind == Expression::Kind::kSymbol && node->symbol == kind) return node->index;
    for (auto a = node->args.rbegin(); a != node->args.rend(); ++a)
      if (seen.insert(&*a).second) stack.push_back(&*a);
  }
  return std::nullopt;
}


// ---------------------------------------------------------------------------------------------
// Parser

class Parser {
 public:
  Parser(std::vector<Token> tokens, const SymbolTable& symbols, ExpressionContext context, const Reporter& report)
      : tokens_(std::move(tokens)), symbols_(symbols), context_(context), report_(report) {}

  Expression parse() {
    Expression result = expression();
    const Token& rest = peek();
    if (rest.kind == Token::Kind::kComma) report_.fail(rest.offset, "',' outside a function call");
    if (rest.kind != Token::Kind::kEnd) fail_missing_operator(rest);
    if (expansion_.used) check_expansion(result);
    return result;
  }

 private:
  /// Counts the nesting of the recursive rules and refuses it beyond kMaxExpressionDepth.
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, std::size_t offset) : parser_(parser) {
      if (++parser_.depth_ > kMaxExpressionDepth) {
        parser_.report_.fail(offset, "expression nested deeper than " + std::to_string(kMaxExpressionDepth) +
                                         " levels (parentheses, function arguments, signs and powers)");
      }
    }
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };

  const Token& peek() const { return tokens_[next_]; }
  // The kEnd token is never consumed, so next_ stays inside tokens_.
  const Token& take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }
  const Token* previous() const { return next_ > 0 ? &tokens_[next_ - 1] : nullptr; }

  static Expression node(Expression::Kind kind, SourcePosition position, std::vector<Expression> args = {}) {
    Expression e;
    e.kind = kind;
    e.position = position;
    e.args = std::move(args);
    return e;
  }

  /// A node over `operands`, moved in (a braced list would copy them: initializer_list elements
  /// are const, and copying the left operand of every link of a+b+c+... is quadratic).
  template <class... Operands>
  static Expression node_of(Expression::Kind kind, SourcePosition position, Operands... operands) {
    std::vector<Expression> args;
    args.reserve(sizeof...(operands));
    (args.push_back(std::move(operands)), ...);
    return node(kind, position, std::move(args));
  }
  SourcePosition position(const Token& token) const { return report_.position(token.offset); }

  // expression := term (('+' | '-') term)*
  Expression expression() {
    Expression left = term();
    while (peek().kind == Token::Kind::kPlus || peek().kind == Token::Kind::kMinus) {
      const Token& op = take();
      const auto kind = op.kind == Token::Kind::kPlus ? Expression::Kind::kAdd : Expression::Kind::kSubtract;
      Expression right = term();
      const SourcePosition at = left.position;
      left = node_of(kind, at, std::move(left), std::move(right));
    }
    return left;
  }

  // term := unary (('*' | '/') unary)*
  Expression term() {
    Expression left = unary();
    while (peek().kind == Token::Kind::kStar || peek().kind == Token::Kind::kSlash) {
      const Token& op = take();
      const auto kind = op.kind == Token::Kind::kStar ? Expression::Kind::kMultiply : Expression::Kind::kDivide;
      Expression right = unary();
      const SourcePosition at = left.position;
      left = node_of(kind, at, std::move(left), std::move(right));
    }
    return left;
  }

  // unary := ('-' | '+') unary | power
  Expression unary() {
    const DepthGuard guard(*this, peek().offset);
    if (peek().kind == Token::Kind::kMinus) {
      const Token& sign = take();
      Expression operand = unary();
      return node_of(Expression::Kind::kNegate, position(sign), std::move(operand));
    }
    if (peek().kind == Token::Kind::kPlus) {
      take();
      return unary();  // +x is x
    }
    return power();
  }

  // power := primary ('^' unary)?   -- the exponent is a unary, hence right-associative
  Expression power() {
    Expression base = primary();
    if (peek().kind != Token::Kind::kCaret) return base;
    take();
    Expression exponent = unary();
    const SourcePosition at = base.position;
    return node_of(Expression::Kind::kPower, at, std::move(base), std::move(exponent));
  }

  // primary := number | name | function '(' arguments ')' | '(' expression ')'
  Expression primary() {
    const Token& token = peek();
    switch (token.kind) {
      case Token::Kind::kNumber: {
        take();
        Expression e = node(Expression::Kind::kNumber, position(token));
        e.number = token.number;
        return e;
      }
      case Token::Kind::kName:
        take();
        if (peek().kind == Token::Kind::kOpen) return call(token);
        return name(token);
      case Token::Kind::kOpen: {
        take();
        Expression inner = expression();
        expect_close("')' to close the '(' at " + describe_position(token));
        return inner;
      }
      default:
        fail_missing_operand(token);
    }
  }

  // function '(' expression (',' expression)* ')'
  Expression call(const Token& function_token) {
    const std::string_view name = function_token.text;
    const auto function = find_function(name);
    if (!function) {
      if (name == "pi") report_.fail(function_token.offset, "pi is a constant, not a function");
      if (is_declared(name)) {
        report_.fail(function_token.offset, quote_for_message(name) + " is not a function (write " +
                                                std::string(name.size() <= 40 ? name : "NAME") + "*(...) for a product)");
      }
      std::vector<std::string> functions(kFunctionNames.begin(), kFunctionNames.end());
      const std::string guess = did_you_mean(name, functions);
      report_.fail(function_token.offset, "unknown function " + quote_for_message(name) +
                                              (guess.empty() ? " (functions: " + join_names(functions) + ")" : guess));
    }
    const Token& open = take();
    std::vector<Expression> args;
    args.push_back(expression());
    while (peek().kind == Token::Kind::kComma) {
      take();
      args.push_back(expression());
    }
    expect_close("',' or ')' to close the '(' at " + describe_position(open));
    const int arity = kFunctionArity[static_cast<std::size_t>(*function)];
    if (static_cast<int>(args.size()) != arity) {
      report_.fail(function_token.offset, std::string(name) + " takes " + std::to_string(arity) +
                                              (arity == 1 ? " argument" : " arguments") + ", not " +
                                              std::to_string(args.size()));
    }
    Expression e = node(Expression::Kind::kCall, position(function_token), std::move(args));
    e.function = *function;
    return e;
  }

  /// A name that is not followed by '(': pi, t, or a declared symbol allowed in this context.
  Expression name(const Token& token) {
    const std::string_view text = token.text;
    const SourcePosition at = position(token);
    if (text == "pi") {
      Expression e = node(Expression::Kind::kNumber, at);
      e.number = std::numbers::pi;
      return e;
    }
    if (find_function(text)) {
      report_.fail(token.offset, "function " + std::string(text) + " needs its arguments in parentheses: " +
                                     std::string(text) + "(...)");
    }
    if (const auto* d = symbols_.find_definition(text)) return substitute(token, *d, false);
    if (text.size() > 4 && text.ends_with("_dot")) {
      if (const auto* d = symbols_.find_definition(text.substr(0, text.size() - 4))) return substitute(token, *d, true);
    }
    const auto symbol = symbols_.find(text);
    if (!symbol) fail_unknown_name(token);
    switch (symbol->kind) {
      case SymbolKind::kTime:
        if (!inputs_allowed()) {
          report_.fail(token.offset, "time t in " + context_name(context_) + ": " +
                                         (context_ == ExpressionContext::kLagrangian
                                              ? std::string("the Lagrangian may not depend on time (t is allowed in forces only)")
                                              : coordinates_only(context_)));
        }
        break;
      case SymbolKind::kVelocity:
        if (!velocities_allowed()) {
          report_.fail(token.offset, "velocity " + std::string(text) + " in " + context_name(context_) + ": " +
                                         coordinates_only(context_));
        }
        break;
      case SymbolKind::kControl:
        if (!inputs_allowed()) {
          report_.fail(token.offset, "control " + std::string(text) + " in " + context_name(context_) +
                                         ": controls may appear in forces only");
        }
        break;
      case SymbolKind::kCoordinate:
      case SymbolKind::kParameter:
        break;
    }
    Expression e = node(Expression::Kind::kSymbol, at);
    e.symbol = symbol->kind;
    e.index = symbol->index;
    return e;
  }

  bool velocities_allowed() const {
    return context_ == ExpressionContext::kLagrangian || context_ == ExpressionContext::kForce ||
           context_ == ExpressionContext::kDefinition || context_ == ExpressionContext::kNonholonomic;
  }
  /// Controls and t: in forces, and in definitions (checked again where those are used).
  bool inputs_allowed() const {
    return context_ == ExpressionContext::kForce || context_ == ExpressionContext::kDefinition;
  }

  bool is_declared(std::string_view name) const {
    return symbols_.find(name).has_value() || symbols_.find_definition(name) != nullptr;
  }

  // --- definitions (DESIGN §6) -------------------------------------------------------------------

  /// The expression of definition `d` (or, with `dot`, its time derivative NAME_dot) in place of
  /// the name `token`, once it is known to be defined, allowed here and within the budget.
  Expression substitute(const Token& token, const SymbolTable::Definition& d, bool dot) {
    if (!d.defined && &d == symbols_.definition_being_read()) {
      report_.fail(token.offset, "definition " + quote_for_message(d.name) +
                                     " uses itself: a definition may use only the names above it");
    }
    if (!d.defined) {
      report_.fail(token.offset, "definition " + quote_for_message(d.name) + " is used before it is defined (at " +
                                     std::to_string(d.position.line) + ":" + std::to_string(d.position.column) +
                                     "): a definition may use only the names above it");
    }
    const Expression& tree = dot ? time_derivative(token, d) : d.value;
    const symbolic::TreeSize size = dot ? d.dot_size : d.size;
    const std::string what = dot ? "the time derivative " + std::string(token.text) + " of definition " +
                                       quote_for_message(d.name)
                                 : "definition " + quote_for_message(d.name);
    check_allowed(token, tree, what);
    expansion_.used = true;
    if (size.depth >= expansion_.deepest) {
      expansion_.deepest = size.depth;
      expansion_.deepest_offset = token.offset;
    }
    // The definition's nodes are shared, not copied (model_description.hpp, ExpressionArgs): the
    // expression stays linear in the file's size however often definitions use earlier ones. The
    // use itself is located here; a message about a part inside the definition points into it.
    Expression use = tree;
    use.position = position(token);
    return use;
  }

  /// NAME_dot = Σ_i ∂NAME/∂q_i · q_i_dot + ∂NAME/∂t, for a definition free of velocities and
  /// controls (the derivative of a control along the motion is not known).
  const Expression& time_derivative(const Token& token, const SymbolTable::Definition& d) {
    const std::string name = quote_for_message(d.name);
    if (const auto i = first_symbol(d.value, SymbolKind::kVelocity)) {
      report_.fail(token.offset, std::string(token.text) + ": definition " + name + " uses the velocity " +
                                     symbols_.coordinates().at(*i) + "_dot, so it has no time derivative " +
                                     "(only a definition free of velocities has NAME_dot)");
    }
    if (const auto i = first_symbol(d.value, SymbolKind::kControl)) {
      report_.fail(token.offset, std::string(token.text) + ": definition " + name + " uses the control " +
                                     symbols_.controls().at(*i) + ", whose time derivative is not known, so it " +
                                     "has no time derivative NAME_dot");
    }
    if (!d.dot) {
      symbolic::TimeDerivatives::Result r = symbols_.time_derivatives().of(d.value, d.value.position);
      d.dot = std::move(r.expression);
      d.dot_size = r.size;
    }
    return *d.dot;
  }

  /// Refuses a definition whose expansion uses what this context may not: a velocity in a
  /// constraint, t or a control in the Lagrangian.
  void check_allowed(const Token& token, const Expression& tree, const std::string& what) const {
    const std::string where = what + " in " + context_name(context_);
    if (!velocities_allowed()) {
      if (const auto i = first_symbol(tree, SymbolKind::kVelocity)) {
        report_.fail(token.offset, where + " uses the velocity " + symbols_.coordinates().at(*i) + "_dot: " +
                                       coordinates_only(context_));
      }
    }
    if (!inputs_allowed()) {
      if (first_symbol(tree, SymbolKind::kTime)) {
        report_.fail(token.offset, where + " uses the time t: " +
                                       (context_ == ExpressionContext::kLagrangian
                                            ? std::string("the Lagrangian may not depend on time (t is allowed in forces only)")
                                            : coordinates_only(context_)));
      }
      if (const auto i = first_symbol(tree, SymbolKind::kControl)) {
        report_.fail(token.offset, where + " uses the control " + symbols_.controls().at(*i) +
                                       ": controls may appear in forces only");
      }
    }
  }

  /// The depth of the expression with its definitions, against the limit every recursive consumer
  /// allows for (its size is linear in the file's: definitions are shared, not copied).
  void check_expansion(const Expression& result) const {
    const symbolic::TreeSize size = symbolic::measure(result);
    if (size.depth > kMaxExpandedDepth) {
      report_.fail(expansion_.deepest_offset, "substituting the definitions makes this expression " +
                                                  std::to_string(size.depth) + " levels deep, more than the limit of " +
                                                  std::to_string(kMaxExpandedDepth));
    }
  }

  /// The names this context may use, for "known: ..." and "did you mean".
  std::vector<std::string> known_names() const {
    std::vector<std::string> known = symbols_.coordinates();
    if (velocities_allowed()) {
      for (const auto& q : symbols_.coordinates()) known.push_back(q + "_dot");
    }
    known.insert(known.end(), symbols_.parameters().begin(), symbols_.parameters().end());
    const std::vector<std::string> definitions = symbols_.defined_names();
    known.insert(known.end(), definitions.begin(), definitions.end());
    if (inputs_allowed()) {
      known.insert(known.end(), symbols_.controls().begin(), symbols_.controls().end());
      known.push_back("t");
    }
    known.push_back("pi");
    return known;
  }

  [[noreturn]] void fail_unknown_name(const Token& token) const {
    const std::vector<std::string> known = known_names();
    std::string message = "unknown name " + quote_for_message(token.text) + " in " + context_name(context_);
    // A short list helps more than a guess; a long one would flood the line.
    constexpr std::size_t kListedNames = 12;
    if (known.size() <= kListedNames) {
      message += " (known: " + join_names(known) + ")";
    } else {
      message += did_you_mean(token.text, known);
    }
    report_.fail(token.offset, message);
  }

  /// An operand was expected and `token` is not one.
  [[noreturn]] void fail_missing_operand(const Token& token) const {
    const Token* before = previous();
    if (is_binary_operator(token.kind) && before && is_binary_operator(before->kind)) {
      report_.fail(token.offset, "two operators in a row: " + describe(token) + " after " + describe(*before));
    }
    if (token.kind == Token::Kind::kEnd && !before) report_.fail(token.offset, "empty expression");
    const std::string after = before ? " after " + describe(*before) : "";
    report_.fail(token.offset, "expected a number, a name or '('" + after + ", found " + describe(token));
  }

  /// Two operands in a row, as in "2 x" or "(a)(b)".
  [[noreturn]] void fail_missing_operator(const Token& token) const {
    const Token* before = previous();
    report_.fail(token.offset, "missing operator before " + describe(token) +
                                   (before ? " (after " + describe(*before) + ")" : std::string()));
  }

  void expect_close(const std::string& what) {
    const Token& token = peek();
    if (token.kind == Token::Kind::kClose) {
      take();
      return;
    }
    if (token.kind == Token::Kind::kComma) report_.fail(token.offset, "',' outside a function call");
    // Parentheses are balanced (check_parentheses), so this is an operand where an operator belongs.
    if (token.kind != Token::Kind::kEnd) fail_missing_operator(token);
    report_.fail(token.offset, "expected " + what);
  }

  std::string describe_position(const Token& token) const {
    const SourcePosition at = report_.position(token.offset);
    return std::to_string(at.line) + ":" + std::to_string(at.column);
  }

  /// What the definitions substituted so far add to the tree.
  struct Expansion {
    bool used = false;
    std::size_t deepest = 0;           ///< depth of the deepest definition used
    std::size_t deepest_offset = 0;    ///< and where
  };

  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  int depth_ = 0;
  Expansion expansion_;
  const SymbolTable& symbols_;
  ExpressionContext context_;
  const Reporter& report_;
};

}  // namespace

Expression parse_expression(const ExpressionSource& source, const SymbolTable& symbols, ExpressionContext context,
                            const std::string& file_label) {
  const Reporter report(source, file_label);
  if (source.text.size() > kMaxExpressionLength) {
    fail_at(file_label, source.start,
            "expression of " + std::to_string(source.text.size()) + " bytes is longer than the limit of " +
                std::to_string(kMaxExpressionLength));
  }
  std::vector<Token> tokens = tokenize(source.text, report);
  if (tokens.size() == 1) fail_at(file_label, source.start, "empty expression in " + context_name(context));
  check_parentheses(tokens, report);
  return Parser(std::move(tokens), symbols, context, report).parse();
}

}  // namespace mechint::model_file
