#pragma once
/// \file
/// A model file (DESIGN §6) after parsing and checking: names resolved to indices, expressions as
/// trees whose shared subexpressions are shared nodes (ExpressionArgs). Nothing of the file's text survives here but numbers (as doubles) and the user's names
/// (which are identifiers, used only for messages and output columns), so the code generator
/// (model_file/kernel_codegen.hpp) cannot emit anything the parser did not produce.
///
/// Produced by `read_model_file` / `parse_model_text` (model_file/model_file.hpp); consumed by the
/// code generator and by `mechint check`.

#include <array>
#include <compare>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mechint::model_file {

/// 1-based line and column in the model file (0, 0: unknown).
struct SourcePosition {
  int line = 0;
  int column = 0;
};

/// The functions of the expression grammar (DESIGN §6), in the order of `kFunctionNames`.
enum class Function { kSin, kCos, kTan, kAsin, kAcos, kAtan, kAtan2, kSinh, kCosh, kTanh, kExp, kLog, kSqrt, kAbs, kPow, kMin, kMax };
inline constexpr std::array<std::string_view, 17> kFunctionNames = {
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
    "tanh", "exp", "log", "sqrt", "abs", "pow", "min", "max"};
/// Number of arguments of each function, in the same order.
inline constexpr std::array<int, 17> kFunctionArity = {1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2};

/// What a name in an expression refers to; `index` is its position in the matching list of
/// ModelDescription (coordinates for both kCoordinate and kVelocity).
enum class SymbolKind { kCoordinate, kVelocity, kParameter, kControl, kTime };

struct Expression;

/// The operands of an expression node. Nodes are immutable once built and shared: a definition
/// used in many places (DESIGN §6, `[definitions]`), or a subexpression of its time derivative
/// NAME_dot, is one node referenced from every place it is used, so an expression is a DAG whose
/// size is linear in the text that wrote it, even where written out as a tree it would be
/// exponential. Read as a vector of `Expression` (operator[], at, range-for); copying an
/// Expression copies its operands' pointers, not the operands.
class ExpressionArgs {
 public:
  using Pointer = std::shared_ptr<const Expression>;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Expression;
    using difference_type = std::ptrdiff_t;
    using pointer = const Expression*;
    using reference = const Expression&;
    const_iterator() = default;
    explicit const_iterator(std::vector<Pointer>::const_iterator at) : at_(at) {}
    reference operator*() const { return **at_; }
    pointer operator->() const { return at_->get(); }
    reference operator[](difference_type i) const { return *at_[i]; }
    const_iterator& operator++() { ++at_; return *this; }
    const_iterator operator++(int) { const_iterator before = *this; ++at_; return before; }
    const_iterator& operator--() { --at_; return *this; }
    const_iterator operator--(int) { const_iterator before = *this; --at_; return before; }
    const_iterator& operator+=(difference_type i) { at_ += i; return *this; }
    const_iterator& operator-=(difference_type i) { at_ -= i; return *this; }
    friend const_iterator operator+(const_iterator a, difference_type i) { return a += i; }
    friend const_iterator operator+(difference_type i, const_iterator a) { return a += i; }
    friend const_iterator operator-(const_iterator a, difference_type i) { return a -= i; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) { return a.at_ - b.at_; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.at_ == b.at_; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.at_ <=> b.at_; }

   private:
    std::vector<Pointer>::const_iterator at_;
  };
  using iterator = const_iterator;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  using value_type = Expression;
  using size_type = std::size_t;

  ExpressionArgs() = default;
  /// Operands built as values (the parser's, a test's): each moved into a node of its own.
  ExpressionArgs(std::vector<Expression> operands);  // NOLINT(google-explicit-constructor): `args = {...}`

  void push_back(Expression operand);
  /// A node shared with other expressions.
  void push_back(Pointer operand) { items_.push_back(std::move(operand)); }
  void reserve(std::size_t n) { items_.reserve(n); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const Expression& operator[](std::size_t i) const { return *items_[i]; }
  const Expression& at(std::size_t i) const { return *items_.at(i); }
  const Expression& front() const { return *items_.front(); }
  const Expression& back() const { return *items_.back(); }
  /// Operand i's node, to share it or to recognise it when met again.
  const Pointer& pointer(std::size_t i) const { return items_[i]; }
  const_iterator begin() const { return const_iterator(items_.begin()); }
  const_iterator end() const { return const_iterator(items_.end()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

 private:
  std::vector<Pointer> items_;
};

/// A node of an expression, with its operands (shared: see ExpressionArgs).
struct Expression {
  enum class Kind {
    kNumber,    ///< `number`
    kSymbol,    ///< `symbol`, `index`
    kNegate,    ///< -args[0]
    kAdd,       ///< args[0] + args[1]
    kSubtract,  ///< args[0] - args[1]
    kMultiply,  ///< args[0] * args[1]
    kDivide,    ///< args[0] / args[1]
    kPower,     ///< args[0] ^ args[1] (right-associative, binds tighter than unary minus: -x^2 = -(x^2))
    kCall,      ///< function(args...)
  };
  Kind kind = Kind::kNumber;
  double number = 0.0;
  SymbolKind symbol = SymbolKind::kTime;
  int index = 0;
  Function function = Function::kSin;
  ExpressionArgs args;
  SourcePosition position;  ///< where the node starts in the file
};

inline ExpressionArgs::ExpressionArgs(std::vector<Expression> operands) {
  items_.reserve(operands.size());
  for (auto& e : operands) push_back(std::move(e));
}

inline void ExpressionArgs::push_back(Expression operand) {
  items_.push_back(std::make_shared<const Expression>(std::move(operand)));
}

/// A named number of the file (a parameter, or a coordinate's initial value).
struct NamedValue {
  std::string name;
  double value = 0.0;
  SourcePosition position;
};

/// The `[draw]` section (DESIGN §11, docs/animations.md): points placed by expressions of the
/// coordinates and parameters, fixed points, and the links drawn between them.
struct DrawDescription {
  struct Point {
    std::string name;
    std::vector<Expression> position;  ///< 2 or 3 components, as `dimension`
  };
  struct Fixed {
    std::string name;
    std::vector<double> position;
  };
  int dimension = 0;  ///< 2 or 3
  std::vector<Point> points;
  std::vector<Fixed> fixed;
  std::vector<std::pair<std::string, std::string>> links;  ///< names of points or fixed points
};

/// A checked model file.
struct ModelDescription {
  std::string file;         ///< the path as given (for messages)
  std::string name;         ///< `name`
  std::string description;  ///< `description` ("" when absent)
  std::vector<std::string> coordinates;  ///< q names, in order; velocities are NAME_dot
  std::vector<bool> periodic;            ///< per coordinate: wrapped to (-pi, pi] in the output
  std::vector<NamedValue> parameters;    ///< in the order of the file
  Expression lagrangian;                 ///< L(q, q_dot; parameters)
  std::vector<Expression> constraints;   ///< g_i(q) = 0
  std::vector<Expression> unilateral;    ///< phi_i(q) >= 0
  /// a_i(q)·q_dot = 0, each linear in the velocities (DESIGN §10, model_file/nonholonomic_checks.hpp)
  std::vector<Expression> nonholonomic;
  /// d_i(q) > 0: where the model is defined (a singular potential excluded); every step's end and
  /// midpoint must keep them (docs/model-files.md). The texts and positions are for messages.
  std::vector<Expression> domain;
  std::vector<std::string> domain_text;
  std::vector<SourcePosition> domain_positions;
  /// Symmetry generators xi(q), each with one component per coordinate.
  std::vector<std::vector<Expression>> symmetries;
  std::vector<Expression> forces;  ///< empty, or one per coordinate: f(q, q_dot, u, t)
  /// s(q) > 0 of adapt=sundman's time transformation dt = h s(q) (DESIGN §10), when the file has one.
  std::optional<Expression> time_scale;
  std::vector<std::string> controls;
  std::string method;             ///< default method ("" when absent)
  SourcePosition method_position;  ///< where `method` is, for a message when it does not apply
  std::optional<double> h;        ///< default step
  std::vector<double> initial_q;  ///< one per coordinate (0 when not given)
  std::vector<double> initial_v;  ///< one per coordinate (0 when not given)
  std::optional<DrawDescription> draw;  ///< `[draw]`, when the file has one
};

}  // namespace mechint::model_file
