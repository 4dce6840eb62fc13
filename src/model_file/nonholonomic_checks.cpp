#include "model_file/nonholonomic_checks.hpp"

#include <unordered_map>

namespace mechint::model_file {
namespace {

/// How a subexpression depends on the velocities: literally 0, free of them, or linear and
/// homogeneous in them (a(q)·q̇).
enum class Degree { kZero, kFree, kLinear };

struct Defect {
  LinearityDefect defect;
};

[[noreturn]] void refuse(const Expression& at, std::string what) { throw Defect{{at.position, std::move(what)}}; }

using Memo = std::unordered_map<const Expression*, Degree>;
Degree degree_of(const Expression& e, Memo& memo);

/// Recursive over the expression: its depth is bounded by the parser's (kMaxExpandedDepth); each
/// distinct node once (memo), since expressions share their definitions.
Degree degree(const Expression& e, Memo& memo) {
  if (const auto found = memo.find(&e); found != memo.end()) return found->second;
  const Degree d = degree_of(e, memo);
  memo.emplace(&e, d);
  return d;
}

Degree degree_of(const Expression& e, Memo& memo) {
  using Kind = Expression::Kind;
  const auto degree = [&memo](const Expression& x) { return mechint::model_file::degree(x, memo); };
  switch (e.kind) {
    case Kind::kNumber: return e.number == 0.0 ? Degree::kZero : Degree::kFree;
    case Kind::kSymbol: return e.symbol == SymbolKind::kVelocity ? Degree::kLinear : Degree::kFree;
    case Kind::kNegate: return degree(e.args[0]);
    case Kind::kAdd:
    case Kind::kSubtract: {
      const Degree a = degree(e.args[0]), b = degree(e.args[1]);
      if (a == Degree::kZero) return b;
      if (b == Degree::kZero || a == b) return a;
      refuse(a == Degree::kFree ? e.args[0] : e.args[1],
             "a term free of velocities in a nonholonomic constraint: every term must be a velocity NAME_dot times "
             "a function of the coordinates (A(q) q_dot = 0)");
    }
    case Kind::kMultiply: {
      const Degree a = degree(e.args[0]), b = degree(e.args[1]);
      if (a == Degree::kZero || b == Degree::kZero) return Degree::kZero;
      if (a == Degree::kLinear && b == Degree::kLinear)
        refuse(e, "a product of velocities in a nonholonomic constraint: it must be linear in the velocities");
      return a == Degree::kLinear || b == Degree::kLinear ? Degree::kLinear : Degree::kFree;
    }
    case Kind::kDivide: {
      const Degree a = degree(e.args[0]);
      if (degree(e.args[1]) == Degree::kLinear)
        refuse(e.args[1], "a division by velocities in a nonholonomic constraint: it must be linear in the velocities");
      return a;
    }
    case Kind::kPower: {
      const Degree base = degree(e.args[0]), exponent = degree(e.args[1]);
      if (exponent == Degree::kLinear)
        refuse(e.args[1], "a velocity in an exponent in a nonholonomic constraint: it must be linear in the velocities");
      if (base != Degree::kLinear) return Degree::kFree;
      if (e.args[1].kind == Kind::kNumber && e.args[1].number == 1.0) return Degree::kLinear;
      refuse(e, "a power of velocities in a nonholonomic constraint: it must be linear in the velocities");
    }
    case Kind::kCall:
      for (const Expression& argument : e.args)
        if (degree(argument) == Degree::kLinear)
          refuse(e, "a velocity inside " + std::string(kFunctionNames[static_cast<std::size_t>(e.function)]) +
                        "(...) in a nonholonomic constraint: it must be linear in the velocities");
      return Degree::kFree;
  }
  return Degree::kFree;
}

}  // namespace

std::optional<LinearityDefect> nonholonomic_defect(const Expression& e) {
  try {
    Memo memo;
    switch (degree(e, memo)) {
      case Degree::kLinear: return std::nullopt;
      case Degree::kZero: return LinearityDefect{e.position, "the nonholonomic constraint is identically zero"};
      case Degree::kFree:
        return LinearityDefect{e.position,
                               "the nonholonomic constraint uses no velocity: it must be linear in the velocities, "
                               "A(q) q_dot = 0 (a constraint on the coordinates belongs in `constraints`)"};
    }
  } catch (const Defect& d) {
    return d.defect;
  }
  return std::nullopt;
}

}  // namespace mechint::model_file
