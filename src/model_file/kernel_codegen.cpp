#include "model_file/kernel_codegen.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <array>
#include <stdexcept>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mechint/kernel/model_kernels.h"
#include "model_file/diagnostics.hpp"
#include "model_file/symbolic.hpp"

namespace mechint::model_file {
namespace {

using symbolic::Graph;
using symbolic::Node;
using symbolic::NodeId;
using symbolic::Op;

// The source declares the table itself (below) so that it compiles without mechint's headers.
// This trips when model_kernels.h grows: append the new members there too.
static_assert(sizeof(mechint_model_kernels) == 208 && offsetof(mechint_model_kernels, separable_step) == 200,
              "kernel_codegen.cpp writes a copy of mechint_model_kernels: update it");

/// model_kernels.h's declarations, under its include guard (a unit that includes both is fine).
constexpr const char* kTableDeclaration = R"(#ifndef MECHINT_KERNEL_MODEL_KERNELS_H
#define MECHINT_KERNEL_MODEL_KERNELS_H
#define MECHINT_KERNEL_OK 0
#define MECHINT_KERNEL_OUTSIDE_DOMAIN 1
#define MECHINT_MASS_FULL 0
#define MECHINT_MASS_DIAGONAL 1
#define MECHINT_MASS_UNIT 2
typedef struct mechint_newton_settings {
  double residual_tolerance;
  double step_tolerance;
  int32_t max_iterations;
} mechint_newton_settings;
typedef struct mechint_newton_report {
  int32_t iterations;
  int32_t converged;
  int32_t jacobian_evaluations;
  double residual_norm;
  double first_update_norm;
  double first_contraction;
} mechint_newton_report;
typedef struct mechint_model_kernels {
  uint32_t abi_version;
  uint32_t struct_size;
  int32_t dim;
  int32_t num_constraints;
  int32_t num_symmetries;
  int32_t num_controls;
  int32_t has_forces;
  const void* context;
  int (*lagrangian)(const void* context, const double* q, const double* v, double* value, double* l_q,
                    double* l_v, double* l_qq, double* l_qv, double* l_vv);
  int (*constraints)(const void* context, const double* q, double* g, double* dg);
  int (*symmetry)(const void* context, int32_t index, const double* q, double* xi);
  int (*forces)(const void* context, const double* q, const double* v, const double* u, double t, double* f,
                double* f_q, double* f_v);
  int (*time_scale)(const void* context, const double* q, double* s, double* s_q, double* s_qq);
  int32_t num_nonholonomic;
  int (*nonholonomic)(const void* context, const double* q, const double* w, double* a, double* aw_q);
  int (*constraint_curvature)(const void* context, const double* q, const double* lambda, double* h);
  int32_t num_unilateral;
  int (*unilateral)(const void* context, const double* q, double* phi, double* dphi);
  uint32_t discrete_rules;
  int (*discrete_lagrangian)(const void* context, int32_t rule, double h, const double* q0, const double* q1,
                             double* d1, double* d2, double* d12);
  int (*discrete_forces)(const void* context, int32_t rule, double h, const double* q0, const double* q1,
                         const double* u, double t0, double* f_minus, double* f_plus, double* df_minus);
  int (*lagrangian_third)(const void* context, const double* q, const double* v, const double* dq, const double* dv,
                          double* h);
  int (*forces_second)(const void* context, const double* q, const double* v, const double* u, double t,
                       const double* mu, double* f_u, double* hessian);
  uint32_t own_discrete_rules;
  int (*energy)(const void* context, const double* q, const double* v, double* energy, double* size);
  int (*discrete_step)(const void* context, int32_t rule, double h, const double* q0, const double* p0,
                       const double* u, double t0, const mechint_newton_settings* settings, double* q1,
                       double* p1, double* f_minus, double* f_plus, mechint_newton_report* report);
  int32_t num_domain;
  int (*domain)(const void* context, const double* q, double* values);
  int (*separable_step)(const void* context, int32_t mass_form, const double* inverse_mass, const double* linear,
                        double h, const double* q0, const double* p0, const double* f0, double* q1, double* v,
                        double* f1, double* p1);
} mechint_model_kernels;
#endif
)";

/// A double as a C literal that reads back as the same double (the shortest such text).
std::string literal(double x) {
  if (!std::isfinite(x)) throw std::logic_error("kernel codegen: non-finite number in a checked model");
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return std::signbit(x) ? "(" + text + ")" : text;
}

// ---- what a function computes: outputs in nested blocks ------------------------------------------

/// `target = value;` for one output entry.
struct Assignment {
  std::string target;
  NodeId value = 0;
};

/// Assignments written under `if (guard)` (no test when guard is empty).
struct Group {
  std::string guard;
  std::vector<Assignment> assignments;
};

/// Code run under `if (condition)` (always for the root): the nodes only it needs, its outputs,
/// then its children. A node is computed in the innermost block enclosing all the blocks that
/// need it, so asking for the value alone skips every node only the Hessian needs.
struct Block {
  std::string condition;
  std::vector<Group> groups;
  std::vector<Block> children;
  /// Code written at the block's start (before its nodes) and after its groups; MI_FREE_T in it
  /// stands for what an early return must release (a split kernel's T).
  std::string prologue, code;
};

/// Writes blocks of straight-line C from one graph.
class Writer {
 public:
  /// `first_weight`: the index from which parameter symbols are the weights w[i] of a kernel (see
  /// KernelModel::weight), not the model's parameters.
  explicit Writer(const Graph& g, int first_weight = std::numeric_limits<int>::max()) : g_(g), first_weight_(first_weight) {}

  /// The text of an operand: a literal, a symbol, or the temporary of an emitted node.
  std::string operand(NodeId id) const {
    const Node& n = g_.node(id);
    if (n.op == Op::kNumber) return literal(n.number);
    if (n.op != Op::kSymbol) {
      if (split_) {  // a local of the current part, else its slot (the kernel's own nodes are locals)
        const auto part = part_of_.find(id);
        const bool local = part == part_of_.end() ? current_part_ < 0 : part->second == current_part_;
        if (!local) return "T[" + std::to_string(slot_.at(id)) + "]";
      }
      return "t" + std::to_string(id);
    }
    const std::string i = std::to_string(n.index);
    switch (n.symbol) {
      case SymbolKind::kCoordinate: return "q[" + i + "]";
      case SymbolKind::kVelocity: return "v[" + i + "]";
      case SymbolKind::kParameter:
        if (n.index >= first_weight_) return "w[" + std::to_string(n.index - first_weight_) + "]";
        return "p[" + i + "]";
      case SymbolKind::kControl: return "u[" + i + "]";
      case SymbolKind::kTime: return "t";
    }
    throw std::logic_error("kernel codegen: unknown symbol kind");
  }

  static bool is_leaf(const Node& n) { return n.op == Op::kNumber || n.op == Op::kSymbol; }

  /// Emits the nodes reachable from `roots` that are not emitted yet, in id order (operands
  /// first), at the function's top level: the domain's, before its test.
  void emit_reachable(const std::vector<NodeId>& roots, std::string& out) {
    std::vector<NodeId> nodes;
    for (const NodeId r : roots) collect(r, nodes);
    std::sort(nodes.begin(), nodes.end());
    for (const NodeId id : nodes) emit(id, "  ", out);
  }

  /// Treats the nodes reachable from `roots` as emitted (by another writer, in an enclosing scope).
  void mark_emitted(const std::vector<NodeId>& roots) {
    std::vector<NodeId> nodes;
    for (const NodeId r : roots) collect(r, nodes);
  }

  /// Emits `root` and its children, each node in the innermost block that encloses its uses.
  void emit_block(const Block& root, std::string& out) {
    blocks_.clear();
    number(root, -1);
    std::vector<int> placement(g_.size(), -1);
    std::vector<int> seen(g_.size(), -1);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      for (const Group& group : blocks_[b].block->groups) {
        for (const Assignment& a : group.assignments) place(a.value, static_cast<int>(b), placement, seen);
      }
    }
    placed_.assign(blocks_.size(), {});
    std::size_t total = 0;
    for (NodeId id = 0; id < placement.size(); ++id) {
      if (placement[id] >= 0) {
        placed_[static_cast<std::size_t>(placement[id])].push_back(id);  // in id order
        ++total;
      }
    }
    if (parts_ == nullptr || total <= kPartSize) {
      write(0, "  ", out);
      return;
    }
    // Split: the nodes are computed by functions ("parts") of at most kPartSize nodes each, so that
    // the compiler's time and memory stay linear in the model's size (its register allocation is
    // superlinear in a function's length: one function of 10^4 statements took seconds, of 10^5
    // minutes). Inside a part a node is a local; one used outside its part is also stored in a
    // slot of the array T, where later parts and the kernel's assignments read it.
    assign_parts(0);
    std::vector<NodeId> before;  // computed by the kernel itself (the domain's nodes): copied into T
    const auto needs_slot = [&](NodeId id) {
      if (is_leaf(g_.node(id)) || slot_.contains(id)) return;
      if (!part_of_.contains(id)) before.push_back(id);
      slot_.emplace(id, slot_.size());
    };
    for (const auto& [id, part] : part_of_) {
      const Node& n = g_.node(id);
      for (int i = 0; i < n.arity; ++i) {
        const NodeId a = n.args[static_cast<std::size_t>(i)];
        const auto found = part_of_.find(a);
        if (found == part_of_.end() || found->second != part) needs_slot(a);
      }
    }
    for (const Numbered& numbered : blocks_)
      for (const Group& group : numbered.block->groups)
        for (const Assignment& a : group.assignments)
          if (part_of_.contains(a.value)) needs_slot(a.value);
    out += "  double* T = (double*)malloc(" + std::to_string(std::max<std::size_t>(slot_.size(), 1)) +
           " * sizeof(double));\n  if (T == NULL) return MECHINT_KERNEL_OUTSIDE_DOMAIN;\n";
    for (const NodeId id : before) out += "  T[" + std::to_string(slot_.at(id)) + "] = t" + std::to_string(id) + ";\n";
    split_ = true;
    write(0, "  ", out);
    out += "  free(T);\n";
  }

  /// Splits large functions (emit_block): their parts are appended to `parts`, named
  /// `name`_partN, called with `call_arguments` and declared with `parameters`.
  void split_into(std::string* parts, std::string name, std::string parameters, std::string call_arguments) {
    parts_ = parts;
    part_name_ = std::move(name);
    part_parameters_ = std::move(parameters);
    part_arguments_ = std::move(call_arguments);
  }

  /// Nodes per function of a split kernel.
  static constexpr std::size_t kPartSize = 4000;

  bool uses_integer_power() const { return uses_integer_power_; }

 private:
  struct Numbered {
    const Block* block;
    int parent;
    int depth;
    std::vector<int> children;
  };

  void number(const Block& b, int parent) {
    const int id = static_cast<int>(blocks_.size());
    blocks_.push_back({&b, parent, parent < 0 ? 0 : blocks_[static_cast<std::size_t>(parent)].depth + 1, {}});
    if (parent >= 0) blocks_[static_cast<std::size_t>(parent)].children.push_back(id);
    for (const Block& c : b.children) number(c, id);
  }

  int common_ancestor(int a, int b) const {
    while (a != b) {
      if (blocks_[static_cast<std::size_t>(a)].depth >= blocks_[static_cast<std::size_t>(b)].depth)
        a = blocks_[static_cast<std::size_t>(a)].parent;
      else
        b = blocks_[static_cast<std::size_t>(b)].parent;
    }
    return a;
  }

  /// Marks the nodes `root` needs as used by block b (once per block), without recursion.
  void place(NodeId root, int b, std::vector<int>& placement, std::vector<int>& seen) const {
    std::vector<NodeId> stack{root};
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      const Node& n = g_.node(id);
      if (is_leaf(n) || emitted_.contains(id) || seen[id] == b) continue;
      seen[id] = b;
      placement[id] = placement[id] < 0 ? b : common_ancestor(placement[id], b);
      for (int i = 0; i < n.arity; ++i) stack.push_back(n.args[static_cast<std::size_t>(i)]);
    }
  }

  void collect(NodeId root, std::vector<NodeId>& nodes) {
    std::vector<NodeId> stack{root};
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      const Node& n = g_.node(id);
      if (is_leaf(n) || emitted_.contains(id)) continue;
      emitted_.insert(id);
      nodes.push_back(id);
      for (int i = 0; i < n.arity; ++i) stack.push_back(n.args[static_cast<std::size_t>(i)]);
    }
  }

  /// The size of the array a group fills when the group is best written as a loop of zeros and
  /// its other entries: all its targets are NAME[i] of one NAME, they cover 0 ... size − 1 once,
  /// and more than kZeroLoop of them are 0. Otherwise 0.
  std::size_t zero_fill(const Group& group) const {
    constexpr std::size_t kZeroLoop = 32;
    if (group.assignments.size() <= kZeroLoop) return 0;
    std::size_t zeros = 0;
    for (const Assignment& a : group.assignments) zeros += g_.is_number(a.value, 0.0);
    if (zeros <= kZeroLoop) return 0;
    const std::string& first = group.assignments.front().target;
    const std::size_t bracket = first.find('[');
    if (bracket == std::string::npos) return 0;
    const std::string name = first.substr(0, bracket + 1);
    std::vector<char> covered(group.assignments.size(), 0);
    for (const Assignment& a : group.assignments) {
      if (a.target.compare(0, name.size(), name) != 0 || a.target.back() != ']') return 0;
      std::size_t index = 0;
      const char* begin = a.target.data() + name.size();
      const auto [end, error] = std::from_chars(begin, a.target.data() + a.target.size() - 1, index);
      if (error != std::errc() || end != a.target.data() + a.target.size() - 1) return 0;
      if (index >= covered.size() || covered[index]) return 0;
      covered[index] = 1;
    }
    return group.assignments.size();
  }

  /// The parts of a split kernel, in the order write() visits the blocks.
  void assign_parts(int b) {
    const std::vector<NodeId>& placed = placed_[static_cast<std::size_t>(b)];
    for (std::size_t first = 0; first < placed.size(); first += kPartSize) {
      const int part = part_count_++;
      for (std::size_t i = first; i < std::min(placed.size(), first + kPartSize); ++i) part_of_.emplace(placed[i], part);
    }
    for (const int c : blocks_[static_cast<std::size_t>(b)].children) assign_parts(c);
  }

  void write(int b, const std::string& indent, std::string& out) {
    const Numbered& numbered = blocks_[static_cast<std::size_t>(b)];
    std::string inner = indent;
    if (!numbered.block->condition.empty()) {
      out += indent + "if (" + numbered.block->condition + ") {\n";
      inner += "  ";
    }
    const auto released = [this](std::string code) {
      for (std::size_t at; (at = code.find("MI_FREE_T")) != std::string::npos;) code.replace(at, 9, split_ ? "free(T);" : "");
      return code;
    };
    out += released(numbered.block->prologue);
    const std::vector<NodeId>& placed = placed_[static_cast<std::size_t>(b)];
    if (!split_) {
      for (const NodeId id : placed) emit(id, inner, out);
    } else {
      for (std::size_t first = 0; first < placed.size(); first += kPartSize) {
        current_part_ = part_of_.at(placed[first]);
        const std::string name = part_name_ + "_part" + std::to_string(current_part_);
        std::string part = "static MI_NOINLINE void " + name + "(" + part_parameters_ + ") {\n";
        for (std::size_t i = first; i < std::min(placed.size(), first + kPartSize); ++i) {
          const NodeId id = placed[i];
          emitted_.insert(id);
          part += "  const double t" + std::to_string(id) + " = " + expression(g_.node(id)) + ";\n";
          if (const auto found = slot_.find(id); found != slot_.end())
            part += "  T[" + std::to_string(found->second) + "] = t" + std::to_string(id) + ";\n";
        }
        current_part_ = -1;
        *parts_ += part + "}\n\n";
        out += inner + name + "(" + part_arguments_ + ");\n";
      }
    }
    for (const Group& group : numbered.block->groups) {
      std::string lines_indent = inner;
      if (!group.guard.empty()) {
        out += inner + "if (" + group.guard + ") {\n";
        lines_indent += "  ";
      }
      // A large matrix mostly of zeros (a Cartesian model's Hessian blocks, a Jacobian of
      // constraints on a few coordinates each) is zeroed by a loop and its other entries assigned:
      // n² lines of `= 0.0` were most of such a model's source.
      const std::size_t zeros = zero_fill(group);
      std::string name = group.assignments.empty() ? "" : group.assignments.front().target;
      name = name.substr(0, name.find('['));
      if (zeros > 0)
        out += lines_indent + "{ int32_t i; for (i = 0; i < " + std::to_string(zeros) + "; ++i) " + name + "[i] = 0.0; }\n";
      for (const Assignment& a : group.assignments)
        if (zeros == 0 || !g_.is_number(a.value, 0.0))
          out += lines_indent + a.target + " = " + operand(a.value) + ";\n";
      if (!group.guard.empty()) out += inner + "}\n";
    }
    out += released(numbered.block->code);
    for (const int c : numbered.children) write(c, inner, out);
    if (!numbered.block->condition.empty()) out += indent + "}\n";
  }

  void emit(NodeId id, const std::string& indent, std::string& out) {
    emitted_.insert(id);
    out += indent + "const double t" + std::to_string(id) + " = " + expression(g_.node(id)) + ";\n";
  }

  /// x^n for a literal integer n: products for the small powers, else mi_powi (repeated squaring).
  std::string integer_power(const std::string& x, long n) {
    switch (n) {
      case 1: return x;
      case 2: return x + " * " + x;
      case 3: return x + " * " + x + " * " + x;
      case -1: return "1.0 / " + x;
      case -2: return "1.0 / (" + x + " * " + x + ")";
      default:
        uses_integer_power_ = true;
        return "mi_powi(" + x + ", " + std::to_string(n) + ")";
    }
  }

  /// The right-hand side of a node. Powers follow model_file/math.hpp's constant_power: integers
  /// by multiplication, halves as x^k·sqrt(x), other constants by pow.
  std::string expression(const Node& n) {
    const std::string a = operand(n.args[0]);
    const std::string b = n.arity > 1 ? operand(n.args[1]) : std::string();
    switch (n.op) {
      case Op::kNegate: return "-" + a;
      case Op::kAdd: return a + " + " + b;
      case Op::kSubtract: return a + " - " + b;
      case Op::kMultiply: return a + " * " + b;
      case Op::kDivide: return a + " / " + b;
      case Op::kStep: return "(" + a + " > 0.0 ? 1.0 : 0.0)";
      case Op::kConstantPower: {
        const Node& exponent = g_.node(n.args[1]);
        if (exponent.op != Op::kNumber) return "pow(" + a + ", " + b + ")";
        const double c = exponent.number;
        if (c == std::trunc(c) && std::abs(c) <= 64) return integer_power(a, static_cast<long>(c));
        if (2 * c == std::trunc(2 * c) && std::abs(2 * c) <= 129) {
          const long k = static_cast<long>(std::floor(c));  // c = k + 1/2
          const std::string root = "sqrt(" + a + ")";
          if (k == 0) return root;
          if (k > 0) return "(" + integer_power(a, k) + ") * " + root;
          return k == -1 ? "1.0 / " + root : "1.0 / ((" + integer_power(a, -k - 1) + ") * " + root + ")";
        }
        return "pow(" + a + ", " + b + ")";
      }
      case Op::kCall:
        switch (n.function) {
          case Function::kAbs: return "fabs(" + a + ")";
          case Function::kMin: return "fmin(" + a + ", " + b + ")";
          case Function::kMax: return "fmax(" + a + ", " + b + ")";
          case Function::kAtan2: return "atan2(" + a + ", " + b + ")";
          case Function::kPow: break;  // rewritten by Graph::power
          default: return std::string(kFunctionNames[static_cast<std::size_t>(n.function)]) + "(" + a + ")";
        }
        break;
      case Op::kNumber:
      case Op::kSymbol:
        break;
    }
    throw std::logic_error("kernel codegen: node without an expression");
  }

  const Graph& g_;
  int first_weight_;
  std::string* parts_ = nullptr;
  std::string part_name_, part_parameters_, part_arguments_;
  bool split_ = false;
  int part_count_ = 0;
  int current_part_ = -1;                            ///< the part being written (-1: the kernel)
  std::unordered_map<NodeId, int> part_of_;          ///< a split kernel's nodes: their part
  std::unordered_map<NodeId, std::size_t> slot_;     ///< nodes used outside their part: their index in T
  std::vector<Numbered> blocks_;
  std::vector<std::vector<NodeId>> placed_;
  struct IdSet {
    std::vector<char> bits;
    bool contains(NodeId id) const { return id < bits.size() && bits[id]; }
    void insert(NodeId id) {
      if (id >= bits.size()) bits.resize(id + 1, 0);
      bits[id] = 1;
    }
  } emitted_;
  bool uses_integer_power_ = false;
};

// ---- the model's functions ------------------------------------------------------------------------

/// The graph of every expression of the model and its derivatives.
class KernelModel {
 public:
  explicit KernelModel(const ModelDescription& m) : m_(m), n_(static_cast<int>(m.coordinates.size())) {
    for (const auto& d : m.domain) domain_.push_back(g_.import(d));
  }

  /// L and its gradient over (q, v), q's entries first: by reverse accumulation, once for every
  /// kernel that uses them (symbolic::Graph::gradient: O(n²) nodes for a chain written with
  /// definitions, not O(n³)).
  std::pair<NodeId, const std::vector<NodeId>&> lagrangian_and_gradient() {
    if (lagrangian_gradient_.empty()) {
      lagrangian_ = g_.import(m_.lagrangian);
      std::vector<symbolic::Variable> variables;
      for (int i = 0; i < n_; ++i) variables.push_back(q(i));
      for (int i = 0; i < n_; ++i) variables.push_back(v(i));
      lagrangian_gradient_ = g_.gradient(lagrangian_, variables);
    }
    return {lagrangian_, lagrangian_gradient_};
  }

  std::string lagrangian_function(bool& uses_integer_power) {
    // The Hessian by forward derivatives of the gradient.
    const auto [L, gradient_of_l] = lagrangian_and_gradient();
    const std::vector<NodeId> lq(gradient_of_l.begin(), gradient_of_l.begin() + n_);
    const std::vector<NodeId> lv(gradient_of_l.begin() + n_, gradient_of_l.end());
    Block root;
    root.groups.push_back({"value", {{"*value", L}}});
    Block gradient{"l_q || l_v || l_qq || l_qv || l_vv", {vector("l_q", lq), vector("l_v", lv)}, {}};
    if (std::optional<Block> tangents = hessian_by_tangents(lq, lv)) {
      gradient.children.push_back(std::move(*tangents));
      root.children.push_back(std::move(gradient));
      return function("static int mi_lagrangian(const void* context, const double* q, const double* v, double* value,\n"
                      "                         double* l_q, double* l_v, double* l_qq, double* l_qv, double* l_vv)",
                      {"q", "v"}, root, uses_integer_power);
    }
    // Symmetric blocks from one triangle, so that they are exactly symmetric; L_qv[i][j] =
    // d2L/dq_i dv_j from the (usually simpler) L_v.
    Group qq{"", {}}, qv{"", {}}, vv{"", {}};
    for (int i = 0; i < n_; ++i) {
      for (int j = 0; j < n_; ++j) {
        qv.assignments.push_back({entry("l_qv", i, j), g_.derivative(lv[j], q(i))});
        if (j < i) continue;
        const NodeId hqq = g_.derivative(lq[i], q(j)), hvv = g_.derivative(lv[i], v(j));
        qq.assignments.push_back({entry("l_qq", i, j), hqq});
        vv.assignments.push_back({entry("l_vv", i, j), hvv});
        if (j == i) continue;
        qq.assignments.push_back({entry("l_qq", j, i), hqq});
        vv.assignments.push_back({entry("l_vv", j, i), hvv});
      }
    }
    Block hessian{"l_qq || l_qv || l_vv", {}, {}};
    hessian.children.push_back({"l_qq", {qq}, {}});
    hessian.children.push_back({"l_qv", {qv}, {}});
    hessian.children.push_back({"l_vv", {vv}, {}});
    gradient.children.push_back(std::move(hessian));
    root.children.push_back(std::move(gradient));
    return function("static int mi_lagrangian(const void* context, const double* q, const double* v, double* value,\n"
                    "                         double* l_q, double* l_v, double* l_qq, double* l_qv, double* l_vv)",
                    {"q", "v"}, root, uses_integer_power);
  }

  /// Whether some kernel evaluates its Hessian by tangents (the source then defines mi_tangents).
  bool uses_tangents() const { return uses_tangents_; }

  /// L's Hessian blocks by forward tangents of its gradient in all 2n directions at once
  /// ("vector forward over reverse"), for a large model: the straight-line code of the symbolic
  /// Hessian has one statement per (node, direction) — O(n²) statements for a chain, which the C
  /// compiler takes seconds per thousand of — where this writes one tape entry per (node, operand):
  /// the tangent of node c is an array over the directions c can depend on (its ranges of
  /// coordinates and velocities, symbolic::Graph::Dependencies), d c = Σ_i ∂c/∂a_i · d a_i is one
  /// loop per operand over a_i's ranges, run by the small interpreter mi_tangents (each entry a loop
  /// of up to n iterations, so its dispatch costs little), and the factors ∂c/∂a_i are nodes of the
  /// graph computed by the straight-line code before it. The same arithmetic as the symbolic
  /// Hessian in another order: entries agree to round-off, and each block is symmetric exactly
  /// (written from one triangle). nullopt for a small model (below kTangentThreshold entries),
  /// whose symbolic Hessian is compiled as before.
  std::optional<Block> hessian_by_tangents(const std::vector<NodeId>& lq, const std::vector<NodeId>& lv) {
    // L_qq and L_qv are read from L_q's tangents (q and v directions), L_vv from L_v's in the v
    // directions only.
    std::vector<TangentRoot> roots;
    for (const NodeId r : lq) roots.push_back({r, true, true});
    for (const NodeId r : lv) roots.push_back({r, false, true});
    std::optional<TangentTape> t = tangent_tape("mi_lagrangian_t", roots, nullptr, kTangentThreshold);
    if (!t) return std::nullopt;
    // Rows of the outputs: {base, low, high} of a gradient entry's q or v range (base −1: zero).
    const auto row = [&](NodeId id, bool velocities) -> std::array<long long, 3> {
      const auto found = t->segments.find(id);
      if (found == t->segments.end()) return {-1, 0, -1};
      const Segments& sg = found->second;
      if (!velocities) return {static_cast<long long>(sg.base), sg.q_low, sg.q_high};
      return {static_cast<long long>(sg.base) + sg.q_size(), sg.v_low, sg.v_high};
    };
    std::string tables = "static const int32_t " + t->name + "_rows[" + std::to_string(3 * n_) + "][3] = {\n";
    for (int i = 0; i < n_; ++i)
      for (const auto& r : {row(lq[i], false), row(lq[i], true), row(lv[i], true)})
        tables += "{" + std::to_string(r[0]) + "," + std::to_string(r[1]) + "," + std::to_string(r[2]) + "},\n";
    tables += "};\n\n";
    tables_ += tables;

    const std::string n = std::to_string(n_), factors_size = std::to_string(std::max<std::size_t>(t->factor_count, 1));
    Block hessian{"l_qq || l_qv || l_vv", {std::move(t->factors)}, {}};
    hessian.prologue = "    double* S = (double*)malloc((" + factors_size + " + " + std::to_string(std::max<std::size_t>(t->used, 1)) +
                       ") * sizeof(double));\n    if (S == NULL) { MI_FREE_T return MECHINT_KERNEL_OUTSIDE_DOMAIN; }\n";
    hessian.code = "    mi_tangents(" + t->name + "_tape, " + std::to_string(t->size) + ", S, S + " + factors_size + ");\n" +
                   "    mi_hessian_rows(" + t->name + "_rows, " + n + ", S + " + factors_size + ", l_qq, l_qv, l_vv);\n    free(S);\n";
    return hessian;
  }

  /// A tangent's directions and where its entries start in D: [q_low, q_high] then [v_low, v_high]
  /// (clamped to the coordinates), or with merged directions (TangentSeeds) the one range
  /// [q_low, q_high] of coordinate indices.
  struct Segments {
    int q_low = 1, q_high = 0, v_low = 1, v_high = 0;
    std::size_t base = 0;
    int q_size() const { return std::max(0, q_high - q_low + 1); }
    int size() const { return q_size() + std::max(0, v_high - v_low + 1); }
  };
  /// An output of a tape and the directions (q, v) its tangent is read in.
  struct TangentRoot {
    NodeId node;
    bool q, v;
  };
  /// Merged directions: direction j moves coordinate j by `coordinate` and velocity j by `velocity`
  /// (graph nodes, constants under differentiation): the midpoint rule's q1_j moves the midpoint by
  /// ½ and the velocity by 1/h.
  struct TangentSeeds {
    NodeId coordinate, velocity;
  };
  /// A tape written into tables_ (NAME_tape), the factors S its entries read, and each node's
  /// entries of D.
  struct TangentTape {
    std::string name;
    std::size_t size = 0, used = 0, factor_count = 0;
    Group factors{"", {}};
    std::unordered_map<NodeId, Segments> segments;
  };

  /// The tape of forward tangents of `roots` (hessian_by_tangents says how it works): in the q and
  /// v directions each root asks for, or with `merged` in the n merged directions (a root's `q`
  /// asks for them). nullopt when the tangents have fewer than `threshold` entries.
  std::optional<TangentTape> tangent_tape(const std::string& prefix, const std::vector<TangentRoot>& roots,
                                          const TangentSeeds* merged, std::size_t threshold) {
    // The nodes whose tangents the outputs need, operands first.
    std::vector<NodeId> nodes;
    {
      std::vector<char> seen(g_.size(), 0);
      std::vector<NodeId> stack;
      for (const TangentRoot& r : roots) stack.push_back(r.node);
      while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        if (seen[id] || g_.is_constant(id)) continue;
        seen[id] = 1;
        nodes.push_back(id);
        const Node& n = g_.node(id);
        for (int i = 0; i < n.arity; ++i) stack.push_back(n.args[static_cast<std::size_t>(i)]);
      }
      std::sort(nodes.begin(), nodes.end());
    }
    // The directions each node's tangent is needed in: the roots' own, and an operand is needed in
    // the directions its users are.
    std::unordered_map<NodeId, std::pair<bool, bool>> needed;  // (q directions, v directions)
    for (const TangentRoot& r : roots) {
      auto& root = needed[r.node];
      root.first = root.first || r.q;
      root.second = root.second || r.v;
    }
    for (auto c = nodes.rbegin(); c != nodes.rend(); ++c) {
      const auto found = needed.find(*c);
      if (found == needed.end()) continue;
      const auto [q, v] = found->second;
      const Node& n = g_.node(*c);
      for (int i = 0; i < n.arity; ++i) {
        auto& operand = needed[n.args[static_cast<std::size_t>(i)]];
        operand.first = operand.first || q;
        operand.second = operand.second || v;
      }
    }
    std::unordered_map<NodeId, Segments> segments;
    std::size_t entries = 0;
    for (const NodeId id : nodes) {
      const auto& d = g_.dependencies(id);
      const auto [need_q, need_v] = needed[id];
      Segments sg;
      if (merged) {  // the hull of the coordinates' and velocities' ranges
        Graph::Dependencies::Range range = d.coordinates;
        range.add(d.velocities);
        if (!range.empty() && need_q) sg = {std::max(range.low, 0), std::min(range.high, n_ - 1), 1, 0, 0};
      } else if (!d.coordinates.empty() && need_q) {
        sg = {std::max(d.coordinates.low, 0), std::min(d.coordinates.high, n_ - 1), 1, 0, 0};
      }
      if (!merged && !d.velocities.empty() && need_v) {
        sg.v_low = std::max(d.velocities.low, 0);
        sg.v_high = std::min(d.velocities.high, n_ - 1);
      }
      sg.base = entries;
      entries += static_cast<std::size_t>(sg.size());
      segments.emplace(id, sg);
    }
    if (entries < threshold) return std::nullopt;
    uses_tangents_ = true;

    // The tape: {kind, destination, source, length, factor}; factors are the entries of S.
    enum Kind { kZero = 0, kAdd = 1, kSubtract = 2, kAxpy = 3, kCopy = 4, kNegated = 5, kScaled = 6, kSetUnit = 7 };
    std::vector<std::array<long long, 5>> tape;
    std::unordered_map<NodeId, std::size_t> factor_of;
    TangentTape result;
    Group& factors = result.factors;
    const auto factor = [&](NodeId f) {
      const auto [at, added] = factor_of.emplace(f, factor_of.size());
      if (added) factors.assignments.push_back({"S[" + std::to_string(at->second) + "]", f});
      return static_cast<long long>(at->second);
    };
    // How many operand slots of tangent nodes use each node; the outputs' nodes are kept.
    std::unordered_map<NodeId, int> users;
    for (const NodeId c : nodes) {
      users.emplace(c, 0);
      const Node& n = g_.node(c);
      for (int i = 0; i < n.arity; ++i) ++users[n.args[static_cast<std::size_t>(i)]];
    }
    std::unordered_set<NodeId> pinned;
    for (const TangentRoot& r : roots) pinned.insert(r.node);
    // Where direction j of a variable's tangent is, and the variable's tangent there (its seed).
    const auto unit = [&](const Segments& to, const Node& symbol) -> std::optional<std::pair<long long, NodeId>> {
      const int j = symbol.index;
      const long long base = static_cast<long long>(to.base);
      if (symbol.symbol != SymbolKind::kCoordinate && symbol.symbol != SymbolKind::kVelocity) return std::nullopt;
      if (merged) {
        if (j < to.q_low || j > to.q_high) return std::nullopt;
        return std::pair{base + j - to.q_low,
                         symbol.symbol == SymbolKind::kCoordinate ? merged->coordinate : merged->velocity};
      }
      if (symbol.symbol == SymbolKind::kCoordinate) {
        if (j < to.q_low || j > to.q_high) return std::nullopt;
        return std::pair{base + j - to.q_low, g_.number(1.0)};
      }
      if (j < to.v_low || j > to.v_high) return std::nullopt;
      return std::pair{base + to.q_size() + j - to.v_low, g_.number(1.0)};
    };
    // A node with one variable operand and one user (a scaled copy: c·a, sin a, a/c) is not stored:
    // its user takes a·(the product of the partials) directly.
    const auto only_variable_operand = [&](NodeId c) {
      const Node& n = g_.node(c);
      int variable = -1;
      for (int i = 0; i < n.arity; ++i) {
        if (g_.is_constant(n.args[static_cast<std::size_t>(i)])) continue;
        if (variable >= 0) return -1;
        variable = i;
      }
      return variable;
    };
    std::unordered_set<NodeId> folded;
    for (const NodeId c : nodes)
      if (g_.node(c).op != Op::kSymbol && users.at(c) == 1 && !pinned.contains(c) && only_variable_operand(c) >= 0)
        folded.insert(c);
    std::size_t used = 0;  // entries of D allocated so far
    for (const NodeId c : nodes) {
      if (folded.contains(c)) continue;
      Segments& to = segments.at(c);
      const Node n = g_.node(c);
      // A node whose tangent is its one variable operand's (a + constant, a·1 folded away, ...)
      // shares that operand's entries instead of copying them.
      if (n.op != Op::kSymbol) {
        int variable = -1, count = 0;
        for (int i = 0; i < n.arity; ++i)
          if (!g_.is_constant(n.args[static_cast<std::size_t>(i)])) {
            variable = i;
            ++count;
          }
        if (count == 1 && g_.node(n.args[static_cast<std::size_t>(variable)]).op != Op::kSymbol &&
            !folded.contains(n.args[static_cast<std::size_t>(variable)]) &&
            g_.is_number(g_.local_partial(c, variable), 1.0)) {
          const Segments& from = segments.at(n.args[static_cast<std::size_t>(variable)]);
          if (from.q_low == to.q_low && from.q_high == to.q_high && from.v_low == to.v_low && from.v_high == to.v_high) {
            to.base = from.base;
            continue;
          }
        }
      }
      // An operand used by this node only, with the same directions and a partial of 1 (a running
      // sum: the adjoint of a chain's link k is that of link k + 1 plus its own terms): this node
      // takes over its entries and adds its other terms to them in place.
      int stolen = -1;
      if (n.op != Op::kSymbol) {
        for (int i = 0; i < n.arity && stolen < 0; ++i) {
          const NodeId a = n.args[static_cast<std::size_t>(i)];
          if (g_.is_constant(a) || g_.node(a).op == Op::kSymbol || users.at(a) != 1 || pinned.contains(a) ||
              folded.contains(a))
            continue;
          const Segments& from = segments.at(a);
          if (from.q_low == to.q_low && from.q_high == to.q_high && from.v_low == to.v_low && from.v_high == to.v_high &&
              g_.is_number(g_.local_partial(c, i), 1.0))
            stolen = i;
        }
      }
      if (stolen >= 0) {
        to.base = segments.at(n.args[static_cast<std::size_t>(stolen)]).base;
      } else {
        to.base = used;
        used += static_cast<std::size_t>(to.size());
      }
      if (n.op == Op::kSymbol) {  // an output that is a variable itself: a unit tangent
        tape.push_back({kZero, static_cast<long long>(to.base), 0, to.size(), 0});
        if (const auto at = unit(to, n)) tape.push_back({kAxpy, at->first, -1, 1, factor(at->second)});
        continue;
      }
      // The contributions of the operands, each a loop over one of the operand's ranges.
      struct Term {
        long long destination, source, length;
        NodeId partial;
        bool unit;  // a variable operand: its tangent is 1 at one direction
      };
      std::vector<Term> terms;
      for (int i = 0; i < n.arity; ++i) {
        NodeId a = n.args[static_cast<std::size_t>(i)];
        if (g_.is_constant(a) || i == stolen) continue;
        NodeId partial = g_.local_partial(c, i);
        while (folded.contains(a)) {  // through the folded nodes to a stored tangent
          const int k = only_variable_operand(a);
          const NodeId next = g_.node(a).args[static_cast<std::size_t>(k)];
          partial = g_.multiply(partial, g_.local_partial(a, k));
          a = next;
        }
        if (g_.is_number(partial, 0.0)) continue;
        const Node& operand = g_.node(a);
        if (operand.op == Op::kSymbol) {
          if (const auto at = unit(to, operand))
            terms.push_back({at->first, -1, 1, g_.is_number(at->second, 1.0) ? partial : g_.multiply(partial, at->second), true});
          continue;
        }
        const Segments& from = segments.at(a);
        if (from.q_size() > 0 && to.q_size() > 0)
          terms.push_back({static_cast<long long>(to.base) + (from.q_low - to.q_low), static_cast<long long>(from.base),
                           from.q_size(), partial, false});
        if (from.size() > from.q_size() && to.size() > to.q_size())
          terms.push_back({static_cast<long long>(to.base) + to.q_size() + (from.v_low - to.v_low),
                           static_cast<long long>(from.base) + from.q_size(), from.size() - from.q_size(), partial, false});
      }
      // Each entry is set by the first term that reaches it and accumulated by the later ones; the
      // entries no term reaches are zeroed (a whole-array zero and then sums took twice the time).
      const long long base = static_cast<long long>(to.base), size = to.size();
      std::vector<char> reached(static_cast<std::size_t>(size), stolen >= 0 ? 1 : 0);
      for (const Term& t : terms) {
        long long at = t.destination - base;
        const long long end = at + t.length;
        while (at < end) {
          const bool set = !reached[static_cast<std::size_t>(at)];
          long long stop = at;
          while (stop < end && !reached[static_cast<std::size_t>(stop)] == set) ++stop;
          const long long destination = base + at, source = t.unit ? -1 : t.source + (at - (t.destination - base)),
                          length = stop - at;
          const bool one = !t.unit && g_.is_number(t.partial, 1.0), minus = !t.unit && g_.is_number(t.partial, -1.0);
          if (t.unit) tape.push_back({set ? kSetUnit : kAxpy, destination, -1, 1, factor(t.partial)});
          else if (one) tape.push_back({set ? kCopy : kAdd, destination, source, length, 0});
          else if (minus) tape.push_back({set ? kNegated : kSubtract, destination, source, length, 0});
          else tape.push_back({set ? kScaled : kAxpy, destination, source, length, factor(t.partial)});
          at = stop;
        }
        for (long long k = t.destination - base; k < end; ++k) reached[static_cast<std::size_t>(k)] = 1;
      }
      for (long long at = 0; at < size;) {
        if (reached[static_cast<std::size_t>(at)]) {
          ++at;
          continue;
        }
        long long stop = at;
        while (stop < size && !reached[static_cast<std::size_t>(stop)]) ++stop;
        tape.push_back({kZero, base + at, 0, stop - at, 0});
        at = stop;
      }
    }
    // Two loops over the same entries, a set or an accumulation then an accumulation, become one
    // (kinds 8 and 9 of mi_tangents): d = a·s + b·t and d = (d + a·s) + b·t, the same operations in
    // the same order (a copy or a sum is a product by 1, a negation or difference by −1: exact),
    // with one pass over d instead of two. A product node's tangent, a·db + b·da, is such a pair.
    std::vector<std::array<long long, 7>> fused;
    const auto multiplier = [&](const std::array<long long, 5>& op) -> long long {
      if (op[2] < 0) return -1;  // a unit entry
      switch (op[0]) {
        case kCopy:
        case kAdd: return factor(g_.number(1.0));
        case kNegated:
        case kSubtract: return factor(g_.number(-1.0));
        case kScaled:
        case kAxpy: return op[4];
        default: return -1;
      }
    };
    const auto sets = [](long long kind) { return kind == kCopy || kind == kNegated || kind == kScaled; };
    const auto accumulates = [](long long kind) { return kind == kAdd || kind == kSubtract || kind == kAxpy; };
    for (std::size_t i = 0; i < tape.size(); ++i) {
      const auto& a = tape[i];
      if (i + 1 < tape.size()) {
        const auto& b = tape[i + 1];
        const bool same = a[1] == b[1] && a[3] == b[3] && (b[2] + b[3] <= b[1] || b[1] + b[3] <= b[2]) &&
                          (a[2] + a[3] <= a[1] || a[1] + a[3] <= a[2]);
        if (same && (sets(a[0]) || accumulates(a[0])) && accumulates(b[0])) {
          const long long fa = multiplier(a), fb = multiplier(b);
          if (fa >= 0 && fb >= 0) {
            fused.push_back({sets(a[0]) ? 8 : 9, a[1], a[2], a[3], fa, b[2], fb});
            ++i;
            continue;
          }
        }
      }
      fused.push_back({a[0], a[1], a[2], a[3], a[4], 0, 0});
    }
    result.name = prefix + std::to_string(tapes_++);
    std::string tables = "static const mi_tangent_op " + result.name + "_tape[" + std::to_string(fused.size()) + "] = {\n";
    for (const auto& op : fused) {
      tables += "{" + std::to_string(op[0]) + "," + std::to_string(op[1]) + "," + std::to_string(op[2]) + "," +
                std::to_string(op[3]) + "," + std::to_string(op[4]) + "," + std::to_string(op[5]) + "," +
                std::to_string(op[6]) + "},\n";
    }
    tables += "};\n";
    tables_ += tables;
    result.size = fused.size();
    result.used = used;
    result.factor_count = factor_of.size();
    result.segments = std::move(segments);
    return result;
  }

  /// The midpoint rule's discrete derivatives (model_kernels.h, discrete_lagrangian: Ld = h L(q̄, v),
  /// q̄ = (q0 + q1)/2, v = (q1 − q0)/h) for a model whose Hessian of L goes by tangents and that has
  /// no forces and no velocity constraints; "" for any other (the methods compose the rule from L's
  /// kernel, kernel/discrete_rules.cpp). D1 = h/2 L_q − L_v and D2 = h/2 L_q + L_v are the composed
  /// rule's arithmetic on the nodes of L's gradient, operation for operation (the same residuals
  /// and momenta, bit for bit); D12 = ∂D1/∂q1 by forward tangents of D1 in the n directions of q1,
  /// along which q̄ moves by ½ and v by 1/h — where the composed rule evaluates L's three Hessian
  /// blocks (the tangents of L_q's nodes in 2n directions, of L_v's in n) and then sums them. The
  /// same Jacobian to round-off, for about half the tape and a third of the rows.
  std::string discrete_midpoint_function(bool& uses_integer_power) {
    if (!uses_tangents_ || !m_.forces.empty() || !m_.nonholonomic.empty()) return "";
    const std::vector<NodeId>& gradient_of_l = lagrangian_and_gradient().second;
    const NodeId half_h = weight(0), inverse_h = weight(1);
    std::vector<NodeId> d1, d2;
    std::vector<TangentRoot> roots;
    for (int i = 0; i < n_; ++i) {
      const NodeId lq = gradient_of_l[static_cast<std::size_t>(i)], lv = gradient_of_l[static_cast<std::size_t>(n_ + i)];
      d1.push_back(g_.subtract(g_.multiply(half_h, lq), lv));
      d2.push_back(g_.add(g_.multiply(half_h, lq), lv));
      roots.push_back({d1.back(), true, false});
    }
    const TangentSeeds seeds{g_.number(0.5), inverse_h};
    std::optional<TangentTape> t = tangent_tape("mi_discrete_t", roots, &seeds, 0);
    const std::string n = std::to_string(n_);
    std::string tables = "static const int32_t " + t->name + "_rows[" + n + "][3] = {\n";
    for (const NodeId r : d1) {
      const auto found = t->segments.find(r);
      if (found == t->segments.end() || found->second.q_size() == 0) {
        tables += "{-1,0,-1},\n";
        continue;
      }
      const Segments& sg = found->second;
      tables += "{" + std::to_string(sg.base) + "," + std::to_string(sg.q_low) + "," + std::to_string(sg.q_high) + "},\n";
    }
    tables_ += tables + "};\n\n";
    const std::string factors_size = std::to_string(std::max<std::size_t>(t->factor_count, 1));
    Block root;
    root.groups.push_back(vector("d1", d1));
    root.groups.push_back(vector("d2", d2));
    Block jacobian{"d12", {std::move(t->factors)}, {}};
    jacobian.prologue = "    double* S = (double*)malloc((" + factors_size + " + " + std::to_string(std::max<std::size_t>(t->used, 1)) +
                        ") * sizeof(double));\n    if (S == NULL) { MI_FREE_T return MECHINT_KERNEL_OUTSIDE_DOMAIN; }\n";
    jacobian.code = "    mi_tangents(" + t->name + "_tape, " + std::to_string(t->size) + ", S, S + " + factors_size + ");\n" +
                    "    { int32_t i; for (i = 0; i < " + n + "; ++i) mi_tangent_row(" + t->name + "_rows[i], S + " + factors_size +
                    ", 0, " + n + ", d12 + i * " + n + "); }\n    free(S);\n";
    root.children.push_back(std::move(jacobian));
    // The rule's point as kernel/discrete_rules.cpp computes it; w: the weights h/2 and 1/h.
    const std::string prologue = "  double q[" + n + "], v[" + n + "], w[2];\n"
                                 "  if (rule != 0) return MECHINT_KERNEL_OUTSIDE_DOMAIN;\n"
                                 "  { int32_t i; for (i = 0; i < " + n + "; ++i) { q[i] = 0.5 * (q0[i] + q1[i]); v[i] = (q1[i] - q0[i]) / h; } }\n"
                                 "  w[0] = 0.5 * h;\n  w[1] = 1.0 / h;\n";
    supplies_midpoint_ = true;
    return function("static int mi_discrete_lagrangian(const void* context, int32_t rule, double h, const double* q0,\n"
                    "                                  const double* q1, double* d1, double* d2, double* d12)",
                    {}, root, uses_integer_power, prologue);
  }

  /// Whether the source defines mi_discrete_lagrangian (discrete_midpoint_function).
  bool supplies_midpoint() const { return supplies_midpoint_; }

  /// The tapes and row tables of hessian_by_tangents, to be written before the kernels.
  const std::string& tables() const { return tables_; }

  /// Tangent entries (Σ over the nodes of their directions) from which L's Hessian is computed by
  /// tangents: below, its symbolic Hessian compiles in well under a second and runs faster than the
  /// tape's short loops (a 10-link chain in joint angles: about 4000 entries, 3000 statements,
  /// 0.5 s of gcc).
  static constexpr std::size_t kTangentThreshold = 6000;

  /// vi-trapezoid's explicit step on the model's side (model_kernels.h, separable_step), for a model
  /// whose L_qv is zero and L_vv constant (it depends on parameters at most) in the graph — the
  /// separability the methods test numerically at a start (kernel/separable.cpp) — and that has no
  /// constraints, forces or velocity constraints; "" for any other (the methods take the steps). The drift and kick are kernel/separable_arithmetic.hpp's, operation
  /// for operation, around L_q's nodes of `lagrangian_function`: the same numbers as the methods'
  /// step, without L_q's trip through a call's memory.
  std::string separable_step_function(bool& uses_integer_power) {
    if (!m_.constraints.empty() || !m_.forces.empty() || !m_.nonholonomic.empty()) return "";
    const std::vector<NodeId>& gradient_of_l = lagrangian_and_gradient().second;
    const std::vector<NodeId> lq(gradient_of_l.begin(), gradient_of_l.begin() + n_);
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < n_; ++j)
        if (!g_.is_number(g_.derivative(gradient_of_l[n_ + j], q(i)), 0.0) ||
            !g_.is_constant(g_.derivative(gradient_of_l[n_ + j], v(i))))
          return "";
    // Straight-line code with constant indices, so that the plugin's -O1 keeps q, v and L_q in
    // registers (scalar replacement of the arrays); loops over them went through memory.
    const std::string n = std::to_string(n_);
    const auto at = [](const char* array, int i) { return std::string(array) + "[" + std::to_string(i) + "]"; };
    const auto half_kick = [&](int i) { return at("p0", i) + " + (0.5 * h) * " + at("f0", i); };
    std::string prologue = "  double q[" + n + "], v[" + n + "], l_q[" + n + "];\n  if (mass_form == MECHINT_MASS_UNIT) {\n";
    for (int i = 0; i < n_; ++i) prologue += "    " + at("v", i) + " = " + half_kick(i) + ";\n";
    prologue += "  } else if (mass_form == MECHINT_MASS_DIAGONAL) {\n";
    for (int i = 0; i < n_; ++i)
      prologue += "    " + at("v", i) + " = " + at("inverse_mass", i) + " * (" + half_kick(i) + " - " + at("linear", i) + ");\n";
    prologue += "  } else {\n    double mv[" + n + "];\n";
    for (int i = 0; i < n_; ++i) prologue += "    " + at("mv", i) + " = " + half_kick(i) + " - " + at("linear", i) + ";\n";
    for (int i = 0; i < n_; ++i) {  // summed in the order of j, as separable_arithmetic.hpp does
      prologue += "    " + at("v", i) + " = ";
      for (int j = 0; j < n_; ++j)
        prologue += std::string(j ? " + " : "") + at("inverse_mass", i * n_ + j) + " * " + at("mv", j);
      prologue += ";\n";
    }
    prologue += "  }\n";
    for (int i = 0; i < n_; ++i) prologue += "  " + at("q", i) + " = " + at("q0", i) + " + h * " + at("v", i) + ";\n";
    std::string finite;
    for (int i = 0; i < n_; ++i) finite += std::string(i ? " || " : "") + "!isfinite(" + at("l_q", i) + ")";
    std::string epilogue = "  if (" + finite + ") return MECHINT_KERNEL_OUTSIDE_DOMAIN;\n";
    for (int i = 0; i < n_; ++i) {  // p1 may be p0 and q1 q0: each entry read before it is written
      epilogue += "  " + at("p1", i) + " = " + half_kick(i) + " + (0.5 * h) * " + at("l_q", i) + ";\n";
      epilogue += "  " + at("q1", i) + " = " + at("q", i) + ";\n  " + at("v_out", i) + " = " + at("v", i) + ";\n  " +
                  at("f1", i) + " = " + at("l_q", i) + ";\n";
    }
    Block root;
    Group gradient = vector("l_q", lq);
    gradient.guard = "";  // a local array here, always wanted
    root.groups.push_back(std::move(gradient));
    return function("static int mi_separable_step(const void* context, int32_t mass_form, const double* inverse_mass,\n"
                    "                             const double* linear, double h, const double* q0, const double* p0,\n"
                    "                             const double* f0, double* q1, double* v_out, double* f1, double* p1)",
                    {}, root, uses_integer_power, prologue, epilogue);
  }

  std::string constraints_function(bool& uses_integer_power) {
    Block root;
    Group values{"g", {}}, jacobian{"", {}};
    for (std::size_t c = 0; c < m_.constraints.size(); ++c) {
      const NodeId gc = g_.import(m_.constraints[c]);
      values.assignments.push_back({"g[" + std::to_string(c) + "]", gc});
      for (int j = 0; j < n_; ++j)
        jacobian.assignments.push_back({entry("dg", static_cast<int>(c), j), g_.derivative(gc, q(j))});
    }
    root.groups.push_back(std::move(values));
    root.children.push_back({"dg", {jacobian}, {}});
    return function("static int mi_constraints(const void* context, const double* q, double* g, double* dg)", {"q"}, root,
                    uses_integer_power);
  }

  /// Σ_c λ_c ∂²g_c/∂q² (symmetric, from one triangle). The multipliers λ are the function's `v`
  /// argument (k ≤ n of them), so that they are the graph's velocity symbols: each entry is one
  /// expression linear in them.
  std::string constraint_curvature_function(bool& uses_integer_power) {
    NodeId weighted = g_.number(0.0);
    for (std::size_t c = 0; c < m_.constraints.size(); ++c)
      weighted = g_.add(weighted, g_.multiply(g_.symbol(SymbolKind::kVelocity, static_cast<int>(c)),
                                              g_.import(m_.constraints[c])));
    std::vector<symbolic::Variable> coordinates;
    for (int i = 0; i < n_; ++i) coordinates.push_back(q(i));
    const std::vector<NodeId> gradient = g_.gradient(weighted, coordinates);
    Block root;
    Group hessian{"", {}};
    for (int i = 0; i < n_; ++i)
      for (int j = i; j < n_; ++j) {
        const NodeId h = g_.derivative(gradient[i], q(j));
        hessian.assignments.push_back({entry("h", i, j), h});
        if (j != i) hessian.assignments.push_back({entry("h", j, i), h});
      }
    root.groups.push_back(std::move(hessian));
    return function("static int mi_constraint_curvature(const void* context, const double* q, const double* v, double* h)",
                    {"q", "v"}, root, uses_integer_power);
  }

  /// φ(q) and Dφ(q) of the walls (`unilateral`, 004 §II-A).
  std::string unilateral_function(bool& uses_integer_power) {
    Block root;
    Group values{"phi", {}}, jacobian{"", {}};
    for (std::size_t c = 0; c < m_.unilateral.size(); ++c) {
      const NodeId phi = g_.import(m_.unilateral[c]);
      values.assignments.push_back({"phi[" + std::to_string(c) + "]", phi});
      for (int j = 0; j < n_; ++j)
        jacobian.assignments.push_back({entry("dphi", static_cast<int>(c), j), g_.derivative(phi, q(j))});
    }
    root.groups.push_back(std::move(values));
    root.children.push_back({"dphi", {jacobian}, {}});
    return function("static int mi_unilateral(const void* context, const double* q, double* phi, double* dphi)", {"q"},
                    root, uses_integer_power);
  }

  /// s(q), s_q and s_qq (symmetric, from one triangle).
  std::string time_scale_function(bool& uses_integer_power) {
    const NodeId scale = g_.import(*m_.time_scale);
    std::vector<NodeId> gradient(n_);
    Block root;
    root.groups.push_back({"", {{"*s", scale}}});
    Group first{"", {}}, second{"", {}};
    for (int i = 0; i < n_; ++i) {
      gradient[i] = g_.derivative(scale, q(i));
      first.assignments.push_back({"s_q[" + std::to_string(i) + "]", gradient[i]});
    }
    for (int i = 0; i < n_; ++i)
      for (int j = i; j < n_; ++j) {
        const NodeId h = g_.derivative(gradient[i], q(j));
        second.assignments.push_back({entry("s_qq", i, j), h});
        if (j != i) second.assignments.push_back({entry("s_qq", j, i), h});
      }
    root.children.push_back({"s_q", {first}, {}});
    root.children.push_back({"s_qq", {second}, {}});
    return function("static int mi_time_scale(const void* context, const double* q, double* s, double* s_q, double* s_qq)",
                    {"q"}, root, uses_integer_power);
  }

  /// One case per generator; an index outside [0, num_symmetries) names no generator, and the
  /// model is not defined there.
  std::string symmetry_function(bool& uses_integer_power) {
    std::string body;
    Writer writer(g_);
    writer.emit_reachable(domain_, body);
    body += domain_test();
    body += "  if (!xi) return MECHINT_KERNEL_OK;\n";
    for (std::size_t k = 0; k < m_.symmetries.size(); ++k) {
      Block root;
      Group components{"", {}};
      for (int i = 0; i < n_; ++i)
        components.assignments.push_back({"xi[" + std::to_string(i) + "]", g_.import(m_.symmetries[k][i])});
      root.groups.push_back(std::move(components));
      Writer generator(g_);
      generator.mark_emitted(domain_);  // computed above, before the test
      std::string code;
      generator.emit_block(root, code);
      body += "  if (index == " + std::to_string(k) + ") {\n" + indented(code) + "    return MECHINT_KERNEL_OK;\n  }\n";
      uses_integer_power = uses_integer_power || generator.uses_integer_power();
    }
    uses_integer_power = uses_integer_power || writer.uses_integer_power();
    return "static int mi_symmetry(const void* context, int32_t index, const double* q, double* xi) {\n"
           "  const double* p = (const double*)context;\n  (void)p;\n  (void)q;\n" +
           body + "  return MECHINT_KERNEL_OUTSIDE_DOMAIN;\n}\n";
  }

  /// The domain's values d_i(q), all of them (model_kernels.h, domain): no test, the caller's.
  std::string domain_function(bool& uses_integer_power) {
    std::string s = "static int mi_domain(const void* context, const double* q, double* values) {\n"
                    "  const double* p = (const double*)context;\n  (void)p;\n  (void)q;\n";
    Writer writer(g_, static_cast<int>(m_.parameters.size()));
    writer.emit_reachable(domain_, s);
    for (std::size_t i = 0; i < domain_.size(); ++i)
      s += "  values[" + std::to_string(i) + "] = " + writer.operand(domain_[i]) + ";\n";
    uses_integer_power = uses_integer_power || writer.uses_integer_power();
    return s + "  return MECHINT_KERNEL_OK;\n}\n";
  }

  std::string forces_function(bool& uses_integer_power) {
    Block root;
    Group values{"f", {}}, fq{"", {}}, fv{"", {}};
    for (int i = 0; i < n_; ++i) {
      const NodeId fi = g_.import(m_.forces[static_cast<std::size_t>(i)]);
      values.assignments.push_back({"f[" + std::to_string(i) + "]", fi});
      for (int j = 0; j < n_; ++j) {
        fq.assignments.push_back({entry("f_q", i, j), g_.derivative(fi, q(j))});
        fv.assignments.push_back({entry("f_v", i, j), g_.derivative(fi, v(j))});
      }
    }
    root.groups.push_back(std::move(values));
    Block jacobians{"f_q || f_v", {}, {}};
    jacobians.children.push_back({"f_q", {fq}, {}});
    jacobians.children.push_back({"f_v", {fv}, {}});
    root.children.push_back(std::move(jacobians));
    return function("static int mi_forces(const void* context, const double* q, const double* v, const double* u,\n"
                    "                     double t, double* f, double* f_q, double* f_v)",
                    {"q", "v", "u", "t"}, root, uses_integer_power);
  }

  /// A(q) and ∂(A(q) w)/∂q of `nonholonomic` (DESIGN §10). Each expression e_i is linear and
  /// homogeneous in the velocities (model_file/nonholonomic_checks.hpp), e_i = Σ_j A_ij(q) v_j, so
  /// A_ij = ∂e_i/∂v_j and, with the kernel's w passed in the place of v, (A w)_q ij = ∂e_i/∂q_j.
  std::string nonholonomic_function(bool& uses_integer_power) {
    Block root;
    Group a{"", {}}, aw_q{"", {}};
    for (std::size_t c = 0; c < m_.nonholonomic.size(); ++c) {
      const NodeId e = g_.import(m_.nonholonomic[c]);
      for (int j = 0; j < n_; ++j) {
        a.assignments.push_back({entry("a", static_cast<int>(c), j), g_.derivative(e, v(j))});
        aw_q.assignments.push_back({entry("aw_q", static_cast<int>(c), j), g_.derivative(e, q(j))});
      }
    }
    root.children.push_back({"a", {a}, {}});
    root.children.push_back({"aw_q", {aw_q}, {}});
    return function("static int mi_nonholonomic(const void* context, const double* q, const double* v, double* a,\n"
                    "                           double* aw_q)",
                    {"q", "v"}, root, uses_integer_power);
  }

  /// ∇²_z (∇L(z)·d), z = (q, v), of `lagrangian_third` (optimal control): ∇L by reverse
  /// accumulation, its product with the direction d = (dq, dv) — weights, constants under
  /// differentiation — differentiated twice more (symmetric, from one triangle).
  std::string lagrangian_third_function(bool& uses_integer_power) {
    const std::vector<symbolic::Variable> z = state_variables();
    const int w = 2 * n_;
    const std::vector<NodeId> gradient = g_.gradient(g_.import(m_.lagrangian), z);
    NodeId directional = g_.number(0.0);
    for (int c = 0; c < w; ++c) directional = g_.add(directional, g_.multiply(weight(c), gradient[static_cast<std::size_t>(c)]));
    Block root;
    root.groups.push_back(symmetric_hessian("h", directional, z));
    std::string direction = "  const double w[" + std::to_string(w) + "] = {";
    for (int i = 0; i < w; ++i)
      direction += (i ? ", " : "") + std::string(i < n_ ? "dq[" : "dv[") + std::to_string(i < n_ ? i : i - n_) + "]";
    direction += "};\n  (void)w;\n";
    return function("static int mi_lagrangian_third(const void* context, const double* q, const double* v,\n"
                    "                               const double* dq, const double* dv, double* h)",
                    {"q", "v"}, root, uses_integer_power, direction);
  }

  /// f_u and the Hessian over s = (q, v, u) of μ·f (`forces_second`, optimal control); μ are the
  /// weights w.
  std::string forces_second_function(bool& uses_integer_power) {
    const int m = static_cast<int>(m_.controls.size());
    std::vector<symbolic::Variable> s = state_variables();
    for (int j = 0; j < m; ++j) s.push_back({SymbolKind::kControl, j});
    Group f_u{"", {}};
    NodeId weighted = g_.number(0.0);
    for (int i = 0; i < n_; ++i) {
      const NodeId fi = g_.import(m_.forces[static_cast<std::size_t>(i)]);
      for (int j = 0; j < m; ++j)
        f_u.assignments.push_back({"f_u[" + std::to_string(i * m + j) + "]", g_.derivative(fi, {SymbolKind::kControl, j})});
      weighted = g_.add(weighted, g_.multiply(weight(i), fi));
    }
    Block root;
    root.children.push_back({"f_u", {f_u}, {}});
    root.children.push_back({"hessian", {symmetric_hessian("hessian", weighted, s)}, {}});
    return function("static int mi_forces_second(const void* context, const double* q, const double* v, const double* u,\n"
                    "                            double t, const double* w, double* f_u, double* hessian)",
                    {"q", "v", "u", "t", "w"}, root, uses_integer_power);
  }

 private:
  /// q then v.
  std::vector<symbolic::Variable> state_variables() const {
    std::vector<symbolic::Variable> z;
    for (int i = 0; i < n_; ++i) z.push_back(q(i));
    for (int i = 0; i < n_; ++i) z.push_back(v(i));
    return z;
  }

  /// Weight i of a kernel (the direction of lagrangian_third, the μ of forces_second): a parameter
  /// symbol past the model's parameters, so that differentiation treats it as the constant it is;
  /// the writer names it w[i].
  NodeId weight(int i) { return g_.symbol(SymbolKind::kParameter, static_cast<int>(m_.parameters.size()) + i); }

  /// The Hessian of `e` over `xs`, written row-major into `name` (symmetric, from one triangle of the
  /// forward derivatives of its reverse-accumulated gradient).
  Group symmetric_hessian(const std::string& name, NodeId e, const std::vector<symbolic::Variable>& xs) {
    const std::vector<NodeId> gradient = g_.gradient(e, xs);
    const std::size_t size = xs.size();
    Group hessian{"", {}};
    for (std::size_t a = 0; a < size; ++a)
      for (std::size_t b = a; b < size; ++b) {
        const NodeId h = g_.derivative(gradient[a], xs[b]);
        hessian.assignments.push_back({name + "[" + std::to_string(a * size + b) + "]", h});
        if (b != a) hessian.assignments.push_back({name + "[" + std::to_string(b * size + a) + "]", h});
      }
    return hessian;
  }

  static symbolic::Variable q(int i) { return {SymbolKind::kCoordinate, i}; }
  static symbolic::Variable v(int i) { return {SymbolKind::kVelocity, i}; }

  std::string entry(const std::string& matrix, int i, int j) const {
    return matrix + "[" + std::to_string(i * n_ + j) + "]";
  }

  static Group vector(const std::string& name, const std::vector<NodeId>& values) {
    Group g{name, {}};
    for (std::size_t i = 0; i < values.size(); ++i) g.assignments.push_back({name + "[" + std::to_string(i) + "]", values[i]});
    return g;
  }

  static std::string indented(const std::string& code) {
    std::string out;
    std::size_t start = 0;
    while (start < code.size()) {
      const std::size_t end = code.find('\n', start);
      out += "  " + code.substr(start, end - start + 1);
      start = end + 1;
    }
    return out;
  }

  /// `if (!(d0 > 0.0) || ...) return MECHINT_KERNEL_OUTSIDE_DOMAIN;` (a NaN fails the test).
  std::string domain_test() const {
    if (domain_.empty()) return "";
    Writer names(g_);
    std::string test;
    for (const NodeId d : domain_) test += std::string(test.empty() ? "" : " || ") + "!(" + names.operand(d) + " > 0.0)";
    return "  if (" + test + ") return MECHINT_KERNEL_OUTSIDE_DOMAIN;\n";
  }

  /// A kernel: the domain's nodes and test first, then the blocks.
  std::string function(const std::string& signature, const std::vector<std::string>& arguments, const Block& root,
                       bool& uses_integer_power, const std::string& prologue = "", const std::string& epilogue = "") {
    std::string s = signature + " {\n  const double* p = (const double*)context;\n  (void)p;\n";
    for (const auto& a : arguments) s += "  (void)" + a + ";\n";
    s += prologue;
    Writer writer(g_, static_cast<int>(m_.parameters.size()));
    // A large kernel is split into parts (Writer::kPartSize) that see what the kernel sees: its
    // arguments and the arrays its prologue declares (separable_step's q and v, the weights w).
    const auto in_scope = [&](const std::string& name) {
      return std::find(arguments.begin(), arguments.end(), name) != arguments.end() ||
             prologue.find("double " + name + "[") != std::string::npos ||
             prologue.find(", " + name + "[") != std::string::npos;
    };
    const std::string name = signature.substr(11, signature.find('(') - 11);  // "static int NAME("
    std::string parts;
    writer.split_into(&parts, name,
                      "const double* p, const double* q, const double* v, const double* u, double t, const double* w, "
                      "double* T",
                      std::string("p, ") + (in_scope("q") ? "q" : "NULL") + ", " + (in_scope("v") ? "v" : "NULL") + ", " +
                          (in_scope("u") ? "u" : "NULL") + ", " + (in_scope("t") ? "t" : "0.0") + ", " +
                          (in_scope("w") ? "w" : "NULL") + ", T");
    writer.emit_reachable(domain_, s);
    s += domain_test();
    writer.emit_block(root, s);
    uses_integer_power = uses_integer_power || writer.uses_integer_power();
    return parts + s + epilogue + "  return MECHINT_KERNEL_OK;\n}\n";
  }

  const ModelDescription& m_;
  int n_;
  Graph g_;
  std::vector<NodeId> domain_;
  NodeId lagrangian_ = 0;
  std::vector<NodeId> lagrangian_gradient_;  ///< empty until lagrangian_and_gradient()
  bool uses_tangents_ = false;
  bool supplies_midpoint_ = false;
  int tapes_ = 0;
  std::string tables_;
};

/// The interpreter of hessian_by_tangents' tapes and the writer of its rows.
constexpr const char* kTangents = R"(/* Forward tangents of the gradient (kernel_codegen.cpp, hessian_by_tangents): each entry is a loop. */
typedef struct mi_tangent_op {
  int32_t kind, destination, source, length, factor, source2, factor2;
} mi_tangent_op;
/* The loops are the kernel's time: optimized (unrolled, vectorized) beyond the plugin's -O1. */
#if defined(__GNUC__) && !defined(__clang__)
#define MI_LOOPS __attribute__((optimize("O3")))
#else
#define MI_LOOPS
#endif
static MI_LOOPS void mi_tangents(const mi_tangent_op* op, int32_t count, const double* S, double* D) {
  int32_t k, i;
  for (k = 0; k < count; ++k, ++op) {
    double* d = D + op->destination;
    const double* s = D + (op->source < 0 ? 0 : op->source);
    const int32_t n = op->length;
    switch (op->kind) {
      case 0: for (i = 0; i < n; ++i) d[i] = 0.0; break;
      case 1: for (i = 0; i < n; ++i) d[i] += s[i]; break;
      case 2: for (i = 0; i < n; ++i) d[i] -= s[i]; break;
      case 3: {
        const double f = S[op->factor];
        if (op->source < 0) d[0] += f;
        else for (i = 0; i < n; ++i) d[i] += f * s[i];
        break;
      }
      case 4: for (i = 0; i < n; ++i) d[i] = s[i]; break;
      case 5: for (i = 0; i < n; ++i) d[i] = -s[i]; break;
      case 6: {
        const double f = S[op->factor];
        for (i = 0; i < n; ++i) d[i] = f * s[i];
        break;
      }
      case 8: {
        const double f = S[op->factor], g = S[op->factor2];
        const double* t = D + op->source2;
        for (i = 0; i < n; ++i) d[i] = f * s[i] + g * t[i];
        break;
      }
      case 9: {
        const double f = S[op->factor], g = S[op->factor2];
        const double* t = D + op->source2;
        for (i = 0; i < n; ++i) d[i] = (d[i] + f * s[i]) + g * t[i];
        break;
      }
      default: d[0] = S[op->factor]; break;
    }
  }
}
/* Row i of l_qq, l_qv, l_vv from the tangents of L_q[i] and L_v[i]; the symmetric blocks from one triangle. */
static MI_LOOPS void mi_tangent_row(const int32_t* row, const double* D, int32_t from, int32_t n, double* out) {
  int32_t j;
  const int32_t low = row[0] < 0 ? n : (row[1] > from ? row[1] : from), high = row[0] < 0 ? n - 1 : row[2];
  for (j = from; j < low && j < n; ++j) out[j] = 0.0;
  for (j = low; j <= high; ++j) out[j] = D[row[0] + j - row[1]];
  for (j = high + 1 > from ? high + 1 : from; j < n; ++j) out[j] = 0.0;
}
static MI_LOOPS void mi_hessian_rows(const int32_t (*rows)[3], int32_t n, const double* D, double* l_qq, double* l_qv,
                                     double* l_vv) {
  int32_t i, j;
  for (i = 0; i < n; ++i) {
    if (l_qq) {
      mi_tangent_row(rows[3 * i], D, i, n, l_qq + i * n);
      for (j = i + 1; j < n; ++j) l_qq[j * n + i] = l_qq[i * n + j];
    }
    if (l_qv) mi_tangent_row(rows[3 * i + 1], D, 0, n, l_qv + i * n);
    if (l_vv) {
      mi_tangent_row(rows[3 * i + 2], D, i, n, l_vv + i * n);
      for (j = i + 1; j < n; ++j) l_vv[j * n + i] = l_vv[i * n + j];
    }
  }
}

)";

constexpr const char* kIntegerPower = R"(/* x^n for an integer n by repeated squaring, as model_file/math.hpp's integer_power. */
static double mi_powi(double x, int n) {
  double result, base;
  int rest;
  if (n < 0) return 1.0 / mi_powi(x, -n);
  if (n == 0) return 1.0;
  result = x;
  base = x;
  rest = n - 1;
  while (rest > 0) {
    if (rest & 1) result = result * base;
    rest >>= 1;
    if (rest > 0) base = base * base;
  }
  return result;
}

)";

}  // namespace

std::string kernel_source(const ModelDescription& model, bool with_optimal_control);

bool optimal_control_applies(const ModelDescription& model) {
  return !model.controls.empty() && model.constraints.empty() && model.nonholonomic.empty() && model.unilateral.empty();
}

std::string generate_kernel_source(const ModelDescription& model, bool with_optimal_control) {
  try {
    return kernel_source(model, with_optimal_control);
  } catch (const std::length_error&) {
    // symbolic::Graph::kMaxNodes: a model whose derivatives would exhaust memory (docs/model-files.md,
    // "Limits"); a linear model of 1000 coordinates stays far below.
    fail_at(model.file, model.lagrangian.position,
            "the derivatives of this model need more than " + std::to_string(symbolic::Graph::kMaxNodes) +
                " nodes of the expression graph: the model is too large to compile");
  }
}

std::string kernel_source(const ModelDescription& model, bool with_optimal_control) {
  const std::size_t n = model.coordinates.size();
  KernelModel kernels(model);
  bool uses_integer_power = false;
  std::string functions = kernels.lagrangian_function(uses_integer_power);
  // After L's kernel, which decides whether its Hessian goes by tangents.
  const std::string discrete_midpoint = kernels.discrete_midpoint_function(uses_integer_power);
  if (!discrete_midpoint.empty()) functions += "\n" + discrete_midpoint;
  if (!model.constraints.empty()) {
    functions += "\n" + kernels.constraints_function(uses_integer_power);
    functions += "\n" + kernels.constraint_curvature_function(uses_integer_power);
  }
  if (!model.symmetries.empty()) functions += "\n" + kernels.symmetry_function(uses_integer_power);
  if (!model.forces.empty()) functions += "\n" + kernels.forces_function(uses_integer_power);
  if (model.time_scale) functions += "\n" + kernels.time_scale_function(uses_integer_power);
  if (!model.nonholonomic.empty()) functions += "\n" + kernels.nonholonomic_function(uses_integer_power);
  if (!model.unilateral.empty()) functions += "\n" + kernels.unilateral_function(uses_integer_power);
  if (!model.domain.empty()) functions += "\n" + kernels.domain_function(uses_integer_power);
  const std::string separable_step = kernels.separable_step_function(uses_integer_power);
  if (!separable_step.empty()) functions += "\n" + separable_step;
  const bool optimal_control = with_optimal_control && optimal_control_applies(model);
  if (optimal_control) {
    functions += "\n" + kernels.lagrangian_third_function(uses_integer_power);
    functions += "\n" + kernels.forces_second_function(uses_integer_power);
  }

  std::string s;
  s += "/* Derivative kernels of a model file (include/mechint/kernel/model_kernels.h), generated by mechint. */\n";
  s += "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n\n";
  s += "#if defined(__GNUC__)\n#define MI_NOINLINE __attribute__((noinline))\n#else\n#define MI_NOINLINE\n#endif\n";
  s += kTableDeclaration;
  s += "\n";
  if (uses_integer_power) s += kIntegerPower;
  if (kernels.uses_tangents()) s += std::string(kTangents) + kernels.tables();
  s += functions;
  // The one exported symbol: visible when the plugin is compiled with -fvisibility=hidden, and
  // unmangled should it be compiled as C++.
  s += "\n#if defined(__GNUC__)\n#define MI_EXPORT __attribute__((visibility(\"default\")))\n#else\n";
  s += "#define MI_EXPORT\n#endif\n#ifdef __cplusplus\nextern \"C\"\n#endif\n";
  s += "MI_EXPORT int mechint_fill_kernels(uint32_t abi_version, const double* parameters, int32_t num_parameters,\n";
  s += "                                   mechint_model_kernels* out) {\n";
  s += "  if (abi_version != " + std::to_string(MECHINT_KERNEL_ABI_VERSION) + "u || out == NULL) return 1;\n";
  s += "  if (num_parameters != " + std::to_string(model.parameters.size()) + ") return 1;\n";
  if (!model.parameters.empty()) s += "  if (parameters == NULL) return 1;\n";
  s += "  out->abi_version = " + std::to_string(MECHINT_KERNEL_ABI_VERSION) + "u;\n";
  s += "  out->struct_size = (uint32_t)sizeof(mechint_model_kernels);\n";
  s += "  out->dim = " + std::to_string(n) + ";\n";
  s += "  out->num_constraints = " + std::to_string(model.constraints.size()) + ";\n";
  s += "  out->num_symmetries = " + std::to_string(model.symmetries.size()) + ";\n";
  s += "  out->num_controls = " + std::to_string(model.controls.size()) + ";\n";
  s += "  out->has_forces = " + std::string(model.forces.empty() ? "0" : "1") + ";\n";
  s += "  out->context = parameters;\n";
  s += "  out->lagrangian = mi_lagrangian;\n";
  s += std::string("  out->constraints = ") + (model.constraints.empty() ? "NULL" : "mi_constraints") + ";\n";
  s += std::string("  out->symmetry = ") + (model.symmetries.empty() ? "NULL" : "mi_symmetry") + ";\n";
  s += std::string("  out->forces = ") + (model.forces.empty() ? "NULL" : "mi_forces") + ";\n";
  s += std::string("  out->time_scale = ") + (model.time_scale ? "mi_time_scale" : "NULL") + ";\n";
  s += "  out->num_nonholonomic = " + std::to_string(model.nonholonomic.size()) + ";\n";
  s += std::string("  out->nonholonomic = ") + (model.nonholonomic.empty() ? "NULL" : "mi_nonholonomic") + ";\n";
  s += std::string("  out->constraint_curvature = ") + (model.constraints.empty() ? "NULL" : "mi_constraint_curvature") +
       ";\n";
  s += "  out->num_unilateral = " + std::to_string(model.unilateral.size()) + ";\n";
  s += std::string("  out->unilateral = ") + (model.unilateral.empty() ? "NULL" : "mi_unilateral") + ";\n";
  // The methods compose the rules' discrete derivatives from L's (kernel/discrete_rules.hpp).
  // Large models supply the midpoint rule (discrete_midpoint_function).
  if (kernels.supplies_midpoint())
    s += "  out->discrete_rules = 1u << " + std::to_string(MECHINT_RULE_MIDPOINT) +
         ";\n  out->discrete_lagrangian = mi_discrete_lagrangian;\n  out->discrete_forces = NULL;\n";
  else
    s += "  out->discrete_rules = 0;\n  out->discrete_lagrangian = NULL;\n  out->discrete_forces = NULL;\n";
  s += std::string("  out->lagrangian_third = ") + (optimal_control ? "mi_lagrangian_third" : "NULL") + ";\n";
  s += std::string("  out->forces_second = ") + (optimal_control ? "mi_forces_second" : "NULL") + ";\n";
  s += "  out->num_domain = " + std::to_string(model.domain.size()) + ";\n";
  s += std::string("  out->domain = ") + (model.domain.empty() ? "NULL" : "mi_domain") + ";\n";
  s += std::string("  out->separable_step = ") + (separable_step.empty() ? "NULL" : "mi_separable_step") + ";\n";
  s += "  return 0;\n}\n";
  return s;
}

}  // namespace mechint::model_file
