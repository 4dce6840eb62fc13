#pragma once
/// \file
/// The expression grammar of model files (DESIGN §6), hand-written: a tokenizer and a
/// recursive-descent parser that resolve every name against the file's declarations and build an
/// `Expression` tree. Only what this parser accepted reaches the code generator, so the grammar is
/// deliberately small:
///
///     expression := term (('+' | '-') term)*
///     term       := unary (('*' | '/') unary)*
///     unary      := ('-' | '+') unary | power
///     power      := primary ('^' unary)?            (right-associative; -x^2 = -(x^2), 2^-1 allowed)
///     primary    := number | name | function '(' expression (',' expression)* ')' | '(' expression ')'
///     number     := digits ['.' digits] [exponent] | '.' digits [exponent]   (finite)
///     name       := [A-Za-z_][A-Za-z0-9_]*
///
/// Spaces, tabs and line breaks separate tokens. `pi` is the number π, `t` the time.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// Longest expression text accepted, in bytes. A tree is at most about half as deep: a chain
/// a+b+c+... is left-deep (recursive consumers of trees must allow for that).
inline constexpr std::size_t kMaxExpressionLength = 10000;
/// Deepest nesting of parentheses, function arguments, unary signs and exponents accepted: the
/// parser recurses once per level, so hostile input cannot exhaust the stack.
inline constexpr int kMaxExpressionDepth = 64;

/// The names a model file declares, which its expressions may use, with an index for lookups
/// (a hostile file may declare tens of thousands of parameters and use as many names).
class SymbolTable {
 public:
  /// What a name refers to.
  struct Symbol {
    SymbolKind kind = SymbolKind::kTime;
    int index = 0;
  };

  SymbolTable() = default;
  /// The names must be distinct, none ending in _dot clashing with a coordinate's velocity, none
  /// equal to `t` (the model-file reader checks this before).
  SymbolTable(std::vector<std::string> coordinates, std::vector<std::string> parameters,
              std::vector<std::string> controls);

  /// NAME (kCoordinate), NAME_dot (kVelocity), a parameter, a control, or `t` (kTime).
  std::optional<Symbol> find(std::string_view name) const;

  const std::vector<std::string>& coordinates() const { return coordinates_; }
  const std::vector<std::string>& parameters() const { return parameters_; }
  const std::vector<std::string>& controls() const { return controls_; }

 private:
  std::vector<std::string> coordinates_;
  std::vector<std::string> parameters_;
  std::vector<std::string> controls_;
  std::map<std::string, Symbol, std::less<>> index_;
};

/// Where an expression appears. Decides which kinds of symbols it may use and how messages name it:
/// the Lagrangian may use coordinates, velocities and parameters; constraints, unilateral
/// constraints and symmetry generators coordinates and parameters; forces everything, controls and
/// `t` included.
enum class ExpressionContext { kLagrangian, kConstraint, kUnilateral, kSymmetry, kForce, kDomain };

/// An expression's text and where it is in the file.
struct ExpressionSource {
  std::string_view text;
  SourcePosition start;         ///< the string value's opening quote
  /// True for a one-line string without escapes: character i of `text` is at column
  /// start.column + 1 + i. Otherwise (escapes, multi-line strings) the file columns of the
  /// characters are not known and every position is `start`.
  bool exact_columns = false;

  /// The position in the file of byte `offset` of `text`.
  SourcePosition position_of(std::size_t offset) const;
};

/// Parses `source.text`, resolves its names with `symbols` under the rules of `context`, and
/// returns the tree (every node with its position; `pi` becomes a number node). Throws
/// mechint::InvalidInput `FILE:LINE:COLUMN: what is wrong` (FILE = `file_label`) on any error:
/// an unknown or misplaced name, an unknown function or a wrong number of arguments, unbalanced
/// parentheses, a character outside the grammar, a missing operand or operator, a number that is
/// not finite, an empty, too long (kMaxExpressionLength) or too deeply nested (kMaxExpressionDepth)
/// expression.
Expression parse_expression(const ExpressionSource& source, const SymbolTable& symbols, ExpressionContext context,
                            const std::string& file_label);

/// True when `expression` contains a symbol of `kind` anywhere.
bool uses_symbol(const Expression& expression, SymbolKind kind);

}  // namespace mechint::model_file
