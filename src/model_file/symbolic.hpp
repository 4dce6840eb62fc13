#pragma once
/// \file
/// Symbolic differentiation of the checked expression trees of a model file (DESIGN §6), for the
/// time derivatives NAME_dot of `[definitions]` and for the derivative kernels of generated code
/// (model_file/kernel_codegen.hpp).
///
/// Expressions live in a hash-consed graph: every distinct operation on distinct operands is one
/// node, so a subexpression that occurs many times (cos(th) in every term, the velocity of mass i
/// inside that of mass i + 1) is stored, differentiated and later computed once. Constructors
/// simplify lightly, without changing a finite value: numbers are folded when the result is finite,
/// and x*0 = 0, x*1 = x, x+0 = x, x/1 = x, -(-x) = x, x^1 = x, x^0 = 1 (the rules by which
/// derivatives of terms free of a variable vanish instead of piling up zeros).
///
/// Semantics are those of the evaluator (model_file/evaluate.hpp) and of the C++ code generator:
///   - x^c with c free of coordinates, velocities, controls and t (numbers and parameters) is a
///     constant power, defined for a negative x when c is an integer; d(x^c) = c·x^(c−1)·dx;
///   - x^y with a variable y is exp(y·log x) (x > 0), differentiated as such:
///     d(x^y) = x^y·(dy·log x + y·dx/x);
///   - abs, min and max are differentiated on the branch they take, as the dual numbers of
///     model_file/math.hpp do: d|x| = dx·(x < 0 ? −1 : 1) (at 0 the right branch, +1),
///     d min(a, b) = (b < a ? db : da), d max(a, b) = (a < b ? db : da) (ties: the first argument).
///     The branch is the node kStep(z) = (z > 0 ? 1 : 0), whose own derivative is 0.

#include <array>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "model_file/model_description.hpp"

namespace mechint::model_file::symbolic {

/// What a derivative is taken with respect to: coordinate `index` (kCoordinate), its velocity
/// (kVelocity), control `index` (kControl) or the time (kTime). Parameters are constants.
struct Variable {
  SymbolKind kind = SymbolKind::kTime;
  int index = 0;
};

/// The pseudo-variable of the time derivative along the motion (DESIGN §6, NAME_dot): ∂/∂(motion)
/// of a coordinate q_i is its velocity symbol, of t is 1, of everything else 0 — so
/// derivative(e, kMotion) = Σ_i ∂e/∂q_i · q̇_i + ∂e/∂t, computed by one forward sweep memoised per
/// node (the same rules as every derivative), linear in the size of the graph.
inline constexpr Variable kMotion{SymbolKind::kParameter, -1};

/// Size of an expression: `nodes` written out as a tree (saturating at SIZE_MAX), `depth` its
/// deepest path (what a recursive consumer of `Expression` descends), `distinct` the nodes of its
/// DAG (each shared node once: what memory and a memoised walk cost).
struct TreeSize {
  std::size_t nodes = 0;
  std::size_t depth = 0;
  std::size_t distinct = 0;
};

/// Nodes, depth and distinct nodes of `e`, in time linear in its distinct nodes and without
/// recursion (an expression may be thousands of levels deep).
TreeSize measure(const Expression& e);

using NodeId = std::uint32_t;

/// The operations of the graph: those of the grammar (`pow` and variable powers are rewritten, see
/// the file comment) and the branch selector of the derivatives of abs, min and max.
enum class Op : std::uint8_t {
  kNumber,         ///< `number`
  kSymbol,         ///< `symbol`, `index` (parameters included)
  kNegate,         ///< -a
  kAdd,            ///< a + b
  kSubtract,       ///< a - b
  kMultiply,       ///< a * b
  kDivide,         ///< a / b
  kConstantPower,  ///< a ^ b, b free of q, v, u and t
  kCall,           ///< function(a) or function(a, b); never pow
  kStep,           ///< 1 when a > 0, else 0 (also for a NaN)
};

struct Node {
  Op op = Op::kNumber;
  Function function = Function::kSin;    ///< kCall
  SymbolKind symbol = SymbolKind::kTime;  ///< kSymbol
  int index = 0;                          ///< kSymbol
  double number = 0.0;                    ///< kNumber
  int arity = 0;
  std::array<NodeId, 2> args{};
};

/// A hash-consed expression graph. A node's operands always have smaller ids than the node, so
/// increasing id order is an evaluation order.
class Graph {
 public:
  Graph();

  NodeId number(double x);
  NodeId symbol(SymbolKind kind, int index);
  NodeId negate(NodeId a);
  NodeId add(NodeId a, NodeId b);
  NodeId subtract(NodeId a, NodeId b);
  NodeId multiply(NodeId a, NodeId b);
  NodeId divide(NodeId a, NodeId b);
  /// 1/b, one node per b: the derivative rules multiply by it instead of dividing by b again, so a
  /// denominator costs one division however many derivatives share it (a division is several
  /// multiplications' time, and the divider is not pipelined: Kepler's Hessian took 11, now 2).
  NodeId reciprocal(NodeId b) { return divide(one_, b); }
  /// Whether node b is a number below zero (a negative constant exponent).
  bool negative_number(NodeId b) const { return nodes_[b].op == Op::kNumber && nodes_[b].number < 0.0; }
  /// base^exponent as the evaluator computes it: a constant power when the exponent is free of
  /// q, v, u and t, else exp(exponent·log base).
  NodeId power(NodeId base, NodeId exponent);
  /// A function of the grammar (pow goes through power()).
  NodeId call(Function function, NodeId a, std::optional<NodeId> b = std::nullopt);
  NodeId step(NodeId a);

  /// The graph of a checked expression (recursive: as deep as the expression). A shared operand
  /// (ExpressionArgs::pointer) is imported once per graph, so the cost is linear in the
  /// expression's distinct nodes, not in its size written out as a tree.
  NodeId import(const Expression& e);
  /// ∂e/∂x, simplified; computed once per (node, variable) and without recursion.
  NodeId derivative(NodeId e, Variable x);
  /// ∂e/∂x for every x of `xs` by reverse accumulation: one sweep over e's nodes, whatever the number
  /// of variables. Each node's adjoint is the sum over its users of their adjoints times their local
  /// partials, so a quantity that feeds many others (the velocity of mass i inside that of every
  /// mass beyond it) gets one adjoint — a suffix sum — instead of one term per use in every
  /// derivative: the gradient of a chain's Lagrangian has O(n) nodes (O(n²) by derivative()), and its
  /// Hessian, by derivative() of these, O(n²) (O(n³)). Same values and branch rules as derivative().
  std::vector<NodeId> gradient(NodeId e, const std::vector<Variable>& xs);

  const Node& node(NodeId id) const { return nodes_[id]; }
  std::size_t size() const { return nodes_.size(); }
  /// False only when `e` certainly does not depend on `x`.
  bool depends_on(NodeId e, Variable x) const;
  /// True when `e` depends on numbers and parameters only.
  bool is_constant(NodeId e) const { return dependencies_[e].none(); }
  bool is_number(NodeId e, double x) const { return nodes_[e].op == Op::kNumber && nodes_[e].number == x; }

  /// The size of `e` written out as a tree, counting stops once above `limit` nodes.
  TreeSize tree_size(NodeId e, std::size_t limit) const;
  /// `e` as an expression tree of the grammar, every node at `at` (recursive: as deep as the tree,
  /// so check tree_size first). kStep becomes max(0, min(1, z·2^600·2^600)), exactly 1 for every
  /// z > 0 (the smallest subnormal becomes 2^126) and 0 for z <= 0, whose derivative by dual
  /// numbers is 0 as well: a tree of the grammar with the same value and derivatives.
  Expression to_expression(NodeId e, SourcePosition at) const;
  /// The same as one shared node, each graph node written once (memoised in this graph): the
  /// expression is a DAG of the graph's size, whatever its size written out as a tree.
  ExpressionArgs::Pointer to_shared_expression(NodeId e, SourcePosition at);

  /// The number of nodes beyond which the graph refuses to grow (std::length_error): protection
  /// against a hostile file whose derivatives would exhaust memory (kernel_codegen turns it into a
  /// located error). A linear model stays far below (a 100-link chain's kernels: ~1e6 nodes).
  static constexpr std::size_t kMaxNodes = std::size_t{1} << 26;

  /// The variables a node may depend on: per kind the range [low, high] of indices (empty when
  /// low > high), and t. A dependency is never missed; within a range it may be over-reported
  /// (a derivative then folds to 0), which costs time, never a wrong result. No cap on indices.
  struct Dependencies {
    struct Range {
      int low = 1, high = 0;
      bool contains(int i) const { return low <= i && i <= high; }
      bool empty() const { return low > high; }
      void add(const Range& r) {
        if (r.empty()) return;
        if (empty()) {
          *this = r;
          return;
        }
        low = std::min(low, r.low);
        high = std::max(high, r.high);
      }
    };
    Range coordinates, velocities, controls;
    bool time = false;
    bool none() const { return coordinates.empty() && velocities.empty() && controls.empty() && !time; }
    bool test(Variable x) const;
    void add(const Dependencies& d) {
      coordinates.add(d.coordinates);
      velocities.add(d.velocities);
      controls.add(d.controls);
      time = time || d.time;
    }
  };
  const Dependencies& dependencies(NodeId e) const { return dependencies_[e]; }

  /// ∂e/∂(operand i of e), a node of this graph (what reverse accumulation multiplies by, and the
  /// factor of a forward tangent: d e = Σ_i local_partial(e, i) · d(operand i)).
  NodeId local_partial(NodeId e, int i);

 private:

  struct Key {
    Op op;
    Function function;
    SymbolKind symbol;
    int index;
    std::uint64_t number_bits;
    int arity;
    std::array<NodeId, 2> args;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };

  NodeId intern(Node n);
  NodeId derivative_rule(NodeId e, Variable x);
  NodeId known_derivative(NodeId e, Variable x) const;
  static std::uint64_t memo_key(NodeId e, Variable x);

  std::vector<Node> nodes_;
  std::vector<Dependencies> dependencies_;
  std::unordered_map<Key, NodeId, KeyHash> index_;
  std::unordered_map<std::uint64_t, NodeId> derivatives_;
  /// Shared operands imported so far (kept alive, so that an address is never reused).
  std::unordered_map<const Expression*, NodeId> imported_;
  std::vector<ExpressionArgs::Pointer> imported_alive_;
  std::unordered_map<NodeId, ExpressionArgs::Pointer> written_;
  NodeId zero_ = 0, one_ = 0;
};

/// ∂e/∂x as an expression tree (every node at e's position).
Expression derivative(const Expression& e, Variable x);

/// The total time derivatives along the motion, Σ_i ∂e/∂q_i · q̇_i + ∂e/∂t, of the definitions of
/// a model file (DESIGN §6, NAME_dot), in one graph for all of them: the derivative of a definition
/// built from earlier ones is built from theirs (x2_dot from x1_dot), each node of the graph is
/// differentiated once, and the expressions returned share their nodes, so the definitions and
/// their time derivatives together stay linear in the size of the file.
class TimeDerivatives {
 public:
  /// NAME_dot of a definition free of velocities and controls, every node at `at`; its size.
  struct Result {
    Expression expression;
    TreeSize size;
  };
  Result of(const Expression& definition, SourcePosition at);

 private:
  Graph graph_;
};

}  // namespace mechint::model_file::symbolic
