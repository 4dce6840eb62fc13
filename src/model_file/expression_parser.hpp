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
///
/// A name of `[definitions]` (DESIGN §6) is replaced by its expression, and NAME_dot by the time
/// derivative of a definition free of velocities: the expressions hold only the symbols above, so
/// every consumer works unchanged with definitions. The definition's nodes are shared, not copied
/// (ExpressionArgs), so an expression is a DAG linear in the size of the file; consumers walk it
/// with each distinct node once (or recursively, as deep as kMaxExpandedDepth).

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model_file/model_description.hpp"
#include "model_file/symbolic.hpp"

namespace mechint::model_file {

/// Longest expression text accepted, in bytes. A tree is at most about half as deep: a chain
/// a+b+c+... is left-deep (recursive consumers of trees must allow for that).
inline constexpr std::size_t kMaxExpressionLength = 10000;
/// Deepest nesting of parentheses, function arguments, unary signs and exponents accepted: the
/// parser recurses once per level, so hostile input cannot exhaust the stack.
inline constexpr int kMaxExpressionDepth = 64;
/// Deepest expression once definitions are substituted: the depth a chain a+b+c+... of the longest
/// expression text reaches, which every recursive consumer of expressions already allows for (a
/// protection of the stack, not a size: a 1000-link chain written with definitions is about 3000
/// levels deep). There is no limit on nodes: definitions are shared, not copied, so an expression's
/// distinct nodes are bounded by the file's size (kMaxModelFileSize) times a small factor.
inline constexpr std::size_t kMaxExpandedDepth = kMaxExpressionLength / 2;

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

  /// A named intermediate expression of `[definitions]` (DESIGN §6).
  struct Definition {
    std::string name;
    SourcePosition position;  ///< of its key in the file
    bool defined = false;     ///< false until its expression is read: an earlier use is refused
    Expression value;         ///< the definitions it uses substituted
    symbolic::TreeSize size;  ///< of `value`
    /// NAME_dot, the total time derivative along the motion, computed at its first use.
    mutable std::optional<Expression> dot;
    mutable symbolic::TreeSize dot_size;
  };

  /// The graph in which every NAME_dot of this table is derived (symbolic::TimeDerivatives).
  symbolic::TimeDerivatives& time_derivatives() const { return *time_derivatives_; }

  /// Declares a definition, in the order of the file, before any is read: a use of a later one is
  /// then told apart from an unknown name. The name must be new (the model-file reader checks).
  void declare_definition(const std::string& name, SourcePosition where);
  /// Records the expression of a declared definition.
  void define(const std::string& name, Expression value);
  /// The definition of that name (declared, maybe not yet defined), or nullptr.
  const Definition* find_definition(std::string_view name) const;
  /// The first definition not yet defined: the one being read while definitions are read.
  const Definition* definition_being_read() const;
  /// The names of the definitions read so far, in order.
  std::vector<std::string> defined_names() const;

  const std::vector<std::string>& coordinates() const { return coordinates_; }
  const std::vector<std::string>& parameters() const { return parameters_; }
  const std::vector<std::string>& controls() const { return controls_; }

 private:
  std::vector<std::string> coordinates_;
  std::vector<std::string> parameters_;
  std::vector<std::string> controls_;
  std::map<std::string, Symbol, std::less<>> index_;
  std::vector<Definition> definitions_;
  std::map<std::string, std::size_t, std::less<>> definition_index_;
  std::shared_ptr<symbolic::TimeDerivatives> time_derivatives_ = std::make_shared<symbolic::TimeDerivatives>();
};

/// Where an expression appears. Decides which kinds of symbols it may use and how messages name it:
/// the Lagrangian may use coordinates, velocities and parameters; constraints, unilateral
/// constraints and symmetry generators coordinates and parameters; forces everything, controls and
/// `t` included. A definition may use everything too: what it uses is checked where it is used.
/// A drawing (`[draw]`, DESIGN §11) places points by coordinates and parameters only.
/// The time scale s(q) of adapt=sundman (DESIGN §10), coordinates and parameters only.
enum class ExpressionContext {
  kLagrangian,
  kConstraint,
  kUnilateral,
  kSymmetry,
  kForce,
  kDomain,
  kDefinition,
  kDrawing,
  kTimeScale,
  kNonholonomic,  ///< a(q)·q̇ of `nonholonomic` (DESIGN §10): coordinates and velocities, no t or controls
};

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
/// expression; a definition used before it is defined, or whose expansion is misplaced (a velocity
/// in a constraint) or too deep (kMaxExpandedDepth); NAME_dot of a definition
/// that uses velocities or controls.
Expression parse_expression(const ExpressionSource& source, const SymbolTable& symbols, ExpressionContext context,
                            const std::string& file_label);

/// True when `expression` contains a symbol of `kind` anywhere.
bool uses_symbol(const Expression& expression, SymbolKind kind);

}  // namespace mechint::model_file
