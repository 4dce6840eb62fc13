#include "model_file/symbolic.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace mechint::model_file::symbolic {

namespace {

constexpr NodeId kNone = ~NodeId{0};

/// f(a) or f(a, b) for a function of the grammar, on doubles, as the evaluator computes it.
double apply(Function f, double a, double b) {
  switch (f) {
    case Function::kSin: return std::sin(a);
    case Function::kCos: return std::cos(a);
    case Function::kTan: return std::tan(a);
    case Function::kAsin: return std::asin(a);
    case Function::kAcos: return std::acos(a);
    case Function::kAtan: return std::atan(a);
    case Function::kAtan2: return std::atan2(a, b);
    case Function::kSinh: return std::sinh(a);
    case Function::kCosh: return std::cosh(a);
    case Function::kTanh: return std::tanh(a);
    case Function::kExp: return std::exp(a);
    case Function::kLog: return std::log(a);
    case Function::kSqrt: return std::sqrt(a);
    case Function::kAbs: return std::abs(a);
    case Function::kPow: return std::pow(a, b);
    case Function::kMin: return std::fmin(a, b);
    case Function::kMax: return std::fmax(a, b);
  }
  throw std::logic_error("symbolic: unknown function");
}

}  // namespace

// ---- measuring trees ---------------------------------------------------------------------------

TreeSize measure(const Expression& e) {
  // Post-order over the distinct nodes: a node's size once its operands' are known.
  std::unordered_map<const Expression*, std::pair<std::size_t, std::size_t>> known;  // nodes, depth
  std::vector<std::pair<const Expression*, bool>> stack{{&e, false}};
  const auto saturating_add = [](std::size_t a, std::size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; };
  while (!stack.empty()) {
    const auto [node, expanded] = stack.back();
    if (known.contains(node)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (const auto& a : node->args)
        if (!known.contains(&a)) stack.emplace_back(&a, false);
      continue;
    }
    stack.pop_back();
    std::size_t nodes = 1, depth = 1;
    for (const auto& a : node->args) {
      const auto& [n, d] = known.at(&a);
      nodes = saturating_add(nodes, n);
      depth = std::max(depth, d + 1);
    }
    known.emplace(node, std::make_pair(nodes, depth));
  }
  const auto& [nodes, depth] = known.at(&e);
  return {nodes, depth, known.size()};
}

// ---- the graph ---------------------------------------------------------------------------------

std::size_t Graph::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](std::uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  mix(static_cast<std::uint64_t>(k.op));
  mix(static_cast<std::uint64_t>(k.function));
  mix(static_cast<std::uint64_t>(k.symbol));
  mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.index)));
  mix(k.number_bits);
  mix(static_cast<std::uint64_t>(k.args[0]) << 32 | k.args[1]);
  return static_cast<std::size_t>(h);
}

Graph::Graph() {
  zero_ = number(0.0);
  one_ = number(1.0);
}

bool Graph::Dependencies::test(Variable x) const {
  switch (x.kind) {
    case SymbolKind::kCoordinate: return coordinates.contains(x.index);
    case SymbolKind::kVelocity: return velocities.contains(x.index);
    case SymbolKind::kTime: return time;
    case SymbolKind::kControl: return controls.contains(x.index);
    case SymbolKind::kParameter:
      if (x.index == kMotion.index) return !coordinates.empty() || time;  // the motion moves q and t
      break;
  }
  throw std::logic_error("symbolic: parameters are not variables");
}

bool Graph::depends_on(NodeId e, Variable x) const { return dependencies_[e].test(x); }

NodeId Graph::intern(Node n) {
  const Key key{n.op,    n.function, n.symbol, n.index, n.op == Op::kNumber ? std::bit_cast<std::uint64_t>(n.number) : 0,
                n.arity, n.args};
  if (const auto found = index_.find(key); found != index_.end()) return found->second;
  Dependencies d;
  if (n.op == Op::kSymbol) {
    const Dependencies::Range self{n.index, n.index};
    switch (n.symbol) {
      case SymbolKind::kCoordinate: d.coordinates = self; break;
      case SymbolKind::kVelocity: d.velocities = self; break;
      case SymbolKind::kControl: d.controls = self; break;
      case SymbolKind::kTime: d.time = true; break;
      case SymbolKind::kParameter: break;
    }
  }
  for (int i = 0; i < n.arity; ++i) d.add(dependencies_[n.args[i]]);
  const auto id = static_cast<NodeId>(nodes_.size());
  if (nodes_.size() >= kMaxNodes) throw std::length_error("symbolic: expression graph too large");
  nodes_.push_back(n);
  dependencies_.push_back(d);
  index_.emplace(key, id);
  return id;
}

NodeId Graph::number(double x) {
  Node n;
  n.op = Op::kNumber;
  n.number = x;
  return intern(n);
}

NodeId Graph::symbol(SymbolKind kind, int index) {
  Node n;
  n.op = Op::kSymbol;
  n.symbol = kind;
  n.index = index;
  return intern(n);
}

namespace {

Node operation(Op op, NodeId a, NodeId b = kNone) {
  Node n;
  n.op = op;
  n.arity = b == kNone ? 1 : 2;
  n.args = {a, b == kNone ? 0 : b};
  return n;
}

}  // namespace

NodeId Graph::negate(NodeId a) {
  const Node& x = nodes_[a];
  if (x.op == Op::kNumber) return number(-x.number);
  if (x.op == Op::kNegate) return x.args[0];
  return intern(operation(Op::kNegate, a));
}

NodeId Graph::add(NodeId a, NodeId b) {
  const Node x = nodes_[a], y = nodes_[b];
  if (x.op == Op::kNumber && y.op == Op::kNumber && std::isfinite(x.number + y.number)) return number(x.number + y.number);
  if (is_number(a, 0.0)) return b;
  if (is_number(b, 0.0)) return a;
  if (y.op == Op::kNegate) return subtract(a, y.args[0]);
  if (x.op == Op::kNegate) return subtract(b, x.args[0]);
  return intern(operation(Op::kAdd, std::min(a, b), std::max(a, b)));  // a + b = b + a exactly
}

NodeId Graph::subtract(NodeId a, NodeId b) {
  const Node x = nodes_[a], y = nodes_[b];
  if (x.op == Op::kNumber && y.op == Op::kNumber && std::isfinite(x.number - y.number)) return number(x.number - y.number);
  if (is_number(b, 0.0)) return a;
  if (is_number(a, 0.0)) return negate(b);
  if (y.op == Op::kNegate) return add(a, y.args[0]);
  return intern(operation(Op::kSubtract, a, b));
}

NodeId Graph::multiply(NodeId a, NodeId b) {
  const Node x = nodes_[a], y = nodes_[b];
  if (x.op == Op::kNumber && y.op == Op::kNumber && std::isfinite(x.number * y.number)) return number(x.number * y.number);
  if (is_number(a, 0.0) || is_number(b, 0.0)) return zero_;
  if (is_number(a, 1.0)) return b;
  if (is_number(b, 1.0)) return a;
  if (is_number(a, -1.0)) return negate(b);
  if (is_number(b, -1.0)) return negate(a);
  if (x.op == Op::kNegate) return negate(multiply(x.args[0], b));
  if (y.op == Op::kNegate) return negate(multiply(a, y.args[0]));
  return intern(operation(Op::kMultiply, std::min(a, b), std::max(a, b)));  // a * b = b * a exactly
}

NodeId Graph::divide(NodeId a, NodeId b) {
  const Node x = nodes_[a], y = nodes_[b];
  if (x.op == Op::kNumber && y.op == Op::kNumber && std::isfinite(x.number / y.number)) return number(x.number / y.number);
  if (is_number(b, 1.0)) return a;
  if (is_number(b, -1.0)) return negate(a);
  if (is_number(a, 0.0)) return zero_;
  if (x.op == Op::kNegate) return negate(divide(x.args[0], b));
  return intern(operation(Op::kDivide, a, b));
}

NodeId Graph::power(NodeId base, NodeId exponent) {
  if (!is_constant(exponent)) return call(Function::kExp, multiply(exponent, call(Function::kLog, base)));
  if (is_number(exponent, 1.0)) return base;
  if (is_number(exponent, 0.0)) return one_;  // x^0 = 1 for every x, as integer_power computes it
  if (is_number(exponent, -1.0)) return reciprocal(base);  // 1/x, as integer_power computes it: one node
  const Node x = nodes_[base], c = nodes_[exponent];
  if (x.op == Op::kNumber && c.op == Op::kNumber && std::isfinite(std::pow(x.number, c.number)))
    return number(std::pow(x.number, c.number));
  return intern(operation(Op::kConstantPower, base, exponent));
}

NodeId Graph::call(Function function, NodeId a, std::optional<NodeId> b) {
  if (function == Function::kPow) return power(a, b.value());
  const bool two = kFunctionArity[static_cast<std::size_t>(function)] == 2;
  if (two != b.has_value()) throw std::logic_error("symbolic: wrong number of arguments");
  const Node x = nodes_[a];
  if (x.op == Op::kNumber && (!b || nodes_[*b].op == Op::kNumber)) {
    const double value = apply(function, x.number, b ? nodes_[*b].number : 0.0);
    if (std::isfinite(value)) return number(value);
  }
  Node n = operation(Op::kCall, a, b ? *b : kNone);
  n.function = function;
  return intern(n);
}

NodeId Graph::step(NodeId a) {
  if (nodes_[a].op == Op::kNumber) return nodes_[a].number > 0.0 ? one_ : zero_;
  return intern(operation(Op::kStep, a));
}

NodeId Graph::import(const Expression& e) {
  using K = Expression::Kind;
  // Operand i, each shared node once (kept alive with its id, so its address is not reused).
  const auto operand = [&](std::size_t i) {
    const ExpressionArgs::Pointer& p = e.args.pointer(i);
    if (const auto found = imported_.find(p.get()); found != imported_.end()) return found->second;
    const NodeId id = import(*p);
    imported_.emplace(p.get(), id);
    imported_alive_.push_back(p);
    return id;
  };
  if (e.args.size() < static_cast<std::size_t>(e.kind == K::kNumber || e.kind == K::kSymbol ? 0
                                               : e.kind == K::kNegate                       ? 1
                                               : e.kind == K::kCall                         ? 1
                                                                                            : 2))
    throw std::logic_error("symbolic: malformed expression tree");
  switch (e.kind) {
    case K::kNumber: return number(e.number);
    case K::kSymbol: return symbol(e.symbol, e.index);
    case K::kNegate: return negate(operand(0));
    case K::kAdd: return add(operand(0), operand(1));
    case K::kSubtract: return subtract(operand(0), operand(1));
    case K::kMultiply: return multiply(operand(0), operand(1));
    case K::kDivide: return divide(operand(0), operand(1));
    case K::kPower: return power(operand(0), operand(1));
    case K::kCall: {
      const NodeId a = operand(0);
      if (e.args.size() == 1) return call(e.function, a);
      return call(e.function, a, operand(1));
    }
  }
  throw std::logic_error("symbolic: malformed expression tree");
}

// ---- derivatives -------------------------------------------------------------------------------

std::uint64_t Graph::memo_key(NodeId e, Variable x) {
  return static_cast<std::uint64_t>(e) << 32 | static_cast<std::uint64_t>(x.kind) << 28 |
         (static_cast<std::uint32_t>(x.index) & 0x0fffffffU);
}

NodeId Graph::known_derivative(NodeId e, Variable x) const {
  if (!depends_on(e, x)) return zero_;
  return derivatives_.at(memo_key(e, x));
}

NodeId Graph::derivative(NodeId root, Variable x) {
  if (x.kind == SymbolKind::kParameter && x.index != kMotion.index) throw std::logic_error("symbolic: parameters are not variables");
  // Depth-first without recursion: a node is differentiated once its operands are.
  std::vector<NodeId> stack{root};
  while (!stack.empty()) {
    const NodeId e = stack.back();
    if (!depends_on(e, x) || derivatives_.contains(memo_key(e, x))) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    const Node n = nodes_[e];
    for (int i = 0; i < n.arity; ++i) {
      const NodeId a = n.args[i];
      if (depends_on(a, x) && !derivatives_.contains(memo_key(a, x))) {
        stack.push_back(a);
        ready = false;
      }
    }
    if (!ready) continue;
    const NodeId d = derivative_rule(e, x);
    derivatives_.emplace(memo_key(e, x), d);
    stack.pop_back();
  }
  return known_derivative(root, x);
}

NodeId Graph::derivative_rule(NodeId e, Variable x) {
  const Node n = nodes_[e];  // a copy: the rules below add nodes
  const NodeId a = n.args[0], b = n.args[1];
  const NodeId da = n.arity >= 1 ? known_derivative(a, x) : zero_;
  const NodeId db = n.arity >= 2 ? known_derivative(b, x) : zero_;
  const auto square = [this](NodeId y) { return power(y, number(2.0)); };
  switch (n.op) {
    case Op::kNumber:
    case Op::kStep:
      return zero_;
    case Op::kSymbol:
      if (x.kind == kMotion.kind && x.index == kMotion.index) {  // q_i -> q_i_dot, t -> 1
        if (n.symbol == SymbolKind::kCoordinate) return symbol(SymbolKind::kVelocity, n.index);
        return n.symbol == SymbolKind::kTime ? one_ : zero_;
      }
      return n.symbol == x.kind && n.index == x.index ? one_ : zero_;
    case Op::kNegate: return negate(da);
    case Op::kAdd: return add(da, db);
    case Op::kSubtract: return subtract(da, db);
    case Op::kMultiply: return add(multiply(da, b), multiply(a, db));
    case Op::kDivide:
      // d(a/b) = (da − (a/b)·db)·(1/b), reusing the quotient itself and b's reciprocal; by a number
      // (y³/3), divided as before, since its reciprocal would be rounded (the reverse partial below
      // has always been the rounded 1/b: a number's reciprocal folds to a literal).
      if (nodes_[b].op == Op::kNumber) return divide(subtract(da, multiply(e, db)), b);
      return multiply(subtract(da, multiply(e, db)), reciprocal(b));
    case Op::kConstantPower:
      // d(x^c) = c·x^(c−1)·dx (c constant); for c < 0, c·x^c·(1/x)·dx: x^(c−1) would be one more
      // division (and root), and every further derivative another, where x^c and 1/x are shared.
      // (Not for c > 0: at x = 0 the product would be 0·∞.)
      if (negative_number(b)) return multiply(multiply(b, multiply(e, reciprocal(a))), da);
      return multiply(multiply(b, power(a, subtract(b, one_))), da);
    case Op::kCall:
      break;
  }
  switch (n.function) {
    case Function::kSin: return multiply(call(Function::kCos, a), da);
    case Function::kCos: return negate(multiply(call(Function::kSin, a), da));
    case Function::kTan: return multiply(add(one_, square(e)), da);
    case Function::kAsin: return multiply(da, reciprocal(call(Function::kSqrt, subtract(one_, square(a)))));
    case Function::kAcos: return negate(multiply(da, reciprocal(call(Function::kSqrt, subtract(one_, square(a))))));
    case Function::kAtan: return multiply(da, reciprocal(add(one_, square(a))));
    case Function::kAtan2:
      // atan2(y, x): (x·dy − y·dx)·1/(x² + y²).
      return multiply(subtract(multiply(b, da), multiply(a, db)), reciprocal(add(square(b), square(a))));
    case Function::kSinh: return multiply(call(Function::kCosh, a), da);
    case Function::kCosh: return multiply(call(Function::kSinh, a), da);
    case Function::kTanh: return multiply(subtract(one_, square(e)), da);
    case Function::kExp: return multiply(e, da);
    case Function::kLog: return multiply(da, reciprocal(a));
    // d√x = dx·½·(1/√x): the reciprocal of √x is the one a quotient by √x needs too (μ/√(q·q)).
    case Function::kSqrt: return multiply(da, multiply(number(0.5), reciprocal(e)));
    case Function::kAbs:
      // The sign on the branch taken: x < 0 ? −1 : 1, i.e. 1 − 2·step(−x).
      return multiply(da, subtract(one_, multiply(number(2.0), step(negate(a)))));
    case Function::kMin:
      // b < a ? db : da.
      return add(da, multiply(step(subtract(a, b)), subtract(db, da)));
    case Function::kMax:
      // a < b ? db : da.
      return add(da, multiply(step(subtract(b, a)), subtract(db, da)));
    case Function::kPow:
      break;  // rewritten by power()
  }
  throw std::logic_error("symbolic: no derivative rule");
}

// ---- gradients by reverse accumulation ---------------------------------------------------------

NodeId Graph::local_partial(NodeId e, int i) {
  const Node n = nodes_[e];  // a copy: the rules below add nodes
  const NodeId a = n.args[0], b = n.args[1];
  const auto square = [this](NodeId y) { return power(y, number(2.0)); };
  switch (n.op) {
    case Op::kNumber:
    case Op::kSymbol:
    case Op::kStep:
      return zero_;
    case Op::kNegate: return number(-1.0);
    case Op::kAdd: return one_;
    case Op::kSubtract: return i == 0 ? one_ : number(-1.0);
    case Op::kMultiply: return i == 0 ? b : a;
    // a/b: 1/b and −(a/b)·(1/b), reusing the quotient itself and b's reciprocal.
    case Op::kDivide: return i == 0 ? reciprocal(b) : negate(multiply(e, reciprocal(b)));
    // x^c: c·x^(c−1) (c constant: no partial in c); c·x^c·(1/x) for c < 0, as derivative_rule.
    case Op::kConstantPower:
      if (i != 0) return zero_;
      if (negative_number(b)) return multiply(b, multiply(e, reciprocal(a)));
      return multiply(b, power(a, subtract(b, one_)));
    case Op::kCall:
      break;
  }
  switch (n.function) {
    case Function::kSin: return call(Function::kCos, a);
    case Function::kCos: return negate(call(Function::kSin, a));
    case Function::kTan: return add(one_, square(e));
    case Function::kAsin: return reciprocal(call(Function::kSqrt, subtract(one_, square(a))));
    case Function::kAcos: return negate(reciprocal(call(Function::kSqrt, subtract(one_, square(a)))));
    case Function::kAtan: return reciprocal(add(one_, square(a)));
    // atan2(y, x): x·1/(x² + y²) and −y·1/(x² + y²).
    case Function::kAtan2: return multiply(i == 0 ? b : negate(a), reciprocal(add(square(b), square(a))));
    case Function::kSinh: return call(Function::kCosh, a);
    case Function::kCosh: return call(Function::kSinh, a);
    case Function::kTanh: return subtract(one_, square(e));
    case Function::kExp: return e;
    case Function::kLog: return reciprocal(a);
    case Function::kSqrt: return multiply(number(0.5), reciprocal(e));
    // The branch taken, as derivative_rule: x < 0 ? −1 : 1; min: b < a ? b : a; max: a < b ? b : a.
    case Function::kAbs: return subtract(one_, multiply(number(2.0), step(negate(a))));
    case Function::kMin: return i == 0 ? subtract(one_, step(subtract(a, b))) : step(subtract(a, b));
    case Function::kMax: return i == 0 ? subtract(one_, step(subtract(b, a))) : step(subtract(b, a));
    case Function::kPow:
      break;  // rewritten by power()
  }
  throw std::logic_error("symbolic: no derivative rule");
}

std::vector<NodeId> Graph::gradient(NodeId root, const std::vector<Variable>& xs) {
  // adjoint[id]: ∂root/∂(node id) accumulated from the nodes that use it; a node's users have
  // larger ids, so one sweep in decreasing id order completes each adjoint before it is passed on.
  std::vector<NodeId> adjoint(root + 1, kNone);
  adjoint[root] = one_;
  for (NodeId id = root + 1; id-- > 0;) {
    const NodeId bar = adjoint[id];
    if (bar == kNone || nodes_[id].op == Op::kStep) continue;
    const Node n = nodes_[id];
    for (int i = 0; i < n.arity; ++i) {
      const NodeId arg = n.args[i];
      if (is_constant(arg)) continue;
      const NodeId contribution = multiply(bar, local_partial(id, i));
      adjoint[arg] = adjoint[arg] == kNone ? contribution : add(adjoint[arg], contribution);
    }
  }
  std::vector<NodeId> out;
  out.reserve(xs.size());
  for (const Variable& x : xs) {
    if (x.kind == SymbolKind::kParameter) throw std::logic_error("symbolic: parameters are not variables");
    const NodeId s = symbol(x.kind, x.index);
    out.push_back(s <= root && adjoint[s] != kNone ? adjoint[s] : zero_);
  }
  return out;
}

// ---- back to trees -----------------------------------------------------------------------------

TreeSize Graph::tree_size(NodeId root, std::size_t limit) const {
  // The nodes reachable from root, then sizes in increasing id order (operands first).
  std::vector<char> reached(root + 1, 0);
  std::vector<NodeId> stack{root};
  reached[root] = 1;
  while (!stack.empty()) {
    const Node& n = nodes_[stack.back()];
    stack.pop_back();
    for (int i = 0; i < n.arity; ++i) {
      if (!reached[n.args[i]]) {
        reached[n.args[i]] = 1;
        stack.push_back(n.args[i]);
      }
    }
  }
  // A kStep is written out as max(0, min(1, (z*c)*c)): 7 nodes over z's, 3 levels deeper; a
  // negative number as -number.
  std::vector<TreeSize> size(root + 1);
  for (NodeId id = 0; id <= root; ++id) {
    if (!reached[id]) continue;
    const Node& n = nodes_[id];
    TreeSize s{1, 1};
    if (n.op == Op::kNumber && std::signbit(n.number)) s = {2, 2};
    for (int i = 0; i < n.arity; ++i) {
      s.nodes = std::min(s.nodes + size[n.args[i]].nodes, limit + 1);
      s.depth = std::max(s.depth, size[n.args[i]].depth + 1);
    }
    if (n.op == Op::kStep) s = {std::min(size[n.args[0]].nodes + 7, limit + 1), size[n.args[0]].depth + 4};
    size[id] = s;
  }
  return size[root];
}

Expression Graph::to_expression(NodeId id, SourcePosition at) const {
  using K = Expression::Kind;
  const auto make = [at](K kind, std::vector<Expression> args) {
    Expression e;
    e.kind = kind;
    e.position = at;
    e.args = std::move(args);
    return e;
  };
  const auto literal = [&](double x) {
    Expression e = make(K::kNumber, {});
    e.number = std::abs(x);
    if (!std::signbit(x)) return e;
    std::vector<Expression> args;  // the parser writes -2 as -(2): keep trees of its shape
    args.push_back(std::move(e));
    return make(K::kNegate, std::move(args));
  };
  const auto function = [&](Function f, Expression a, Expression b) {
    std::vector<Expression> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    Expression e = make(K::kCall, std::move(args));
    e.function = f;
    return e;
  };
  const Node& n = nodes_[id];
  std::vector<Expression> args;
  for (int i = 0; i < n.arity; ++i) args.push_back(to_expression(n.args[i], at));
  switch (n.op) {
    case Op::kNumber: return literal(n.number);
    case Op::kSymbol: {
      Expression e = make(K::kSymbol, {});
      e.symbol = n.symbol;
      e.index = n.index;
      return e;
    }
    case Op::kNegate: return make(K::kNegate, std::move(args));
    case Op::kAdd: return make(K::kAdd, std::move(args));
    case Op::kSubtract: return make(K::kSubtract, std::move(args));
    case Op::kMultiply: return make(K::kMultiply, std::move(args));
    case Op::kDivide: return make(K::kDivide, std::move(args));
    case Op::kConstantPower: return make(K::kPower, std::move(args));
    case Op::kCall: {
      Expression e = make(K::kCall, std::move(args));
      e.function = n.function;
      return e;
    }
    case Op::kStep: {
      // max(0, min(1, (z*2^600)*2^600)): see the declaration.
      const double scale = 0x1p600;
      std::vector<Expression> inner;
      inner.push_back(std::move(args[0]));
      inner.push_back(literal(scale));
      std::vector<Expression> outer;
      outer.push_back(make(K::kMultiply, std::move(inner)));
      outer.push_back(literal(scale));
      Expression scaled = make(K::kMultiply, std::move(outer));
      return function(Function::kMax, literal(0.0), function(Function::kMin, literal(1.0), std::move(scaled)));
    }
  }
  throw std::logic_error("symbolic: unknown operation");
}

ExpressionArgs::Pointer Graph::to_shared_expression(NodeId root, SourcePosition at) {
  // In increasing id order (operands first) over the nodes reachable from root not written yet.
  std::vector<NodeId> order;
  std::vector<NodeId> stack{root};
  std::unordered_map<NodeId, bool> queued;
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    if (written_.contains(id) || queued.contains(id)) continue;
    queued.emplace(id, true);
    order.push_back(id);
    const Node& n = nodes_[id];
    for (int i = 0; i < n.arity; ++i) stack.push_back(n.args[i]);
  }
  std::sort(order.begin(), order.end());
  using K = Expression::Kind;
  const auto make = [at](K kind) {
    Expression e;
    e.kind = kind;
    e.position = at;
    return e;
  };
  for (const NodeId id : order) {
    const Node n = nodes_[id];  // a copy: a step's literals add nodes
    if (n.op == Op::kNumber || n.op == Op::kSymbol || n.op == Op::kStep) {
      // Leaves as to_expression writes them; a step (rare: abs, min, max) as its small tree over
      // the shared operand.
      if (n.op != Op::kStep) {
        written_.emplace(id, std::make_shared<const Expression>(to_expression(id, at)));
        continue;
      }
    }
    Expression e;
    switch (n.op) {
      case Op::kNegate: e = make(K::kNegate); break;
      case Op::kAdd: e = make(K::kAdd); break;
      case Op::kSubtract: e = make(K::kSubtract); break;
      case Op::kMultiply: e = make(K::kMultiply); break;
      case Op::kDivide: e = make(K::kDivide); break;
      case Op::kConstantPower: e = make(K::kPower); break;
      case Op::kCall:
        e = make(K::kCall);
        e.function = n.function;
        break;
      case Op::kStep: {
        // max(0, min(1, (z*2^600)*2^600)), as to_expression.
        const auto literal = [&](double x) { return std::make_shared<const Expression>(to_expression(number(x), at)); };
        Expression inner = make(K::kMultiply);
        inner.args.push_back(written_.at(n.args[0]));
        inner.args.push_back(literal(0x1p600));
        Expression scaled = make(K::kMultiply);
        scaled.args.push_back(std::move(inner));
        scaled.args.push_back(literal(0x1p600));
        Expression low = make(K::kCall);
        low.function = Function::kMin;
        low.args.push_back(literal(1.0));
        low.args.push_back(std::move(scaled));
        e = make(K::kCall);
        e.function = Function::kMax;
        e.args.push_back(literal(0.0));
        e.args.push_back(std::move(low));
        written_.emplace(id, std::make_shared<const Expression>(std::move(e)));
        continue;
      }
      case Op::kNumber:
      case Op::kSymbol:
        break;
    }
    for (int i = 0; i < n.arity; ++i) e.args.push_back(written_.at(n.args[i]));
    written_.emplace(id, std::make_shared<const Expression>(std::move(e)));
  }
  return written_.at(root);
}

// ---- on trees ----------------------------------------------------------------------------------

Expression derivative(const Expression& e, Variable x) {
  Graph g;
  return g.to_expression(g.derivative(g.import(e), x), e.position);
}

TimeDerivatives::Result TimeDerivatives::of(const Expression& definition, SourcePosition at) {
  const NodeId d = graph_.derivative(graph_.import(definition), kMotion);
  Result r;
  r.expression = *graph_.to_shared_expression(d, at);
  r.size = measure(r.expression);
  return r;
}

}  // namespace mechint::model_file::symbolic
