#include "model_file/model_structure.hpp"

#include <algorithm>
#include <optional>
#include <cmath>
#include <cstddef>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mechint::model_file {
namespace {

using Kind = Expression::Kind;

/// Whether `e` uses a symbol of `kind` (each distinct node once: expressions share definitions).
bool depends_on(const Expression& e, SymbolKind kind) {
  std::unordered_set<const Expression*> seen;
  std::vector<const Expression*> stack{&e};
  while (!stack.empty()) {
    const Expression* node = stack.back();
    stack.pop_back();
    if (node->kind == Kind::kSymbol && node->symbol == kind) return true;
    for (const auto& a : node->args)
      if (seen.insert(&a).second) stack.push_back(&a);
  }
  return false;
}

/// Lowest and highest degree of `e` as a polynomial in the symbols of one kind (coefficients may be
/// any expression free of them); nullopt when it is not such a polynomial.
struct Degree {
  int low = 0, high = 0;
};

/// degree_in with each distinct node analysed once (recursive: as deep as the expression,
/// kMaxExpandedDepth). Degrees are capped, so a power of a power of ... cannot overflow.
class DegreeIn {
 public:
  explicit DegreeIn(SymbolKind kind) : kind_(kind) {}

  std::optional<Degree> operator()(const Expression& e) {
    if (const auto found = memo_.find(&e); found != memo_.end()) return found->second;
    const std::optional<Degree> d = compute(e);
    memo_.emplace(&e, d);
    return d;
  }

 private:
  static constexpr int kCap = 1 << 20;

  bool free_of_kind(const Expression& e) {
    if (const auto found = free_.find(&e); found != free_.end()) return found->second;
    bool free = !(e.kind == Kind::kSymbol && e.symbol == kind_);
    for (const auto& a : e.args) free = free && free_of_kind(a);
    free_.emplace(&e, free);
    return free;
  }

  std::optional<Degree> compute(const Expression& e) {
    if (free_of_kind(e)) return Degree{};
    const auto capped = [](int x) { return std::min(x, kCap); };
    switch (e.kind) {
      case Kind::kSymbol:
        return Degree{1, 1};
      case Kind::kNegate:
        return (*this)(e.args[0]);
      case Kind::kAdd:
      case Kind::kSubtract: {
        const auto a = (*this)(e.args[0]), b = (*this)(e.args[1]);
        if (!a || !b) return std::nullopt;
        return Degree{std::min(a->low, b->low), std::max(a->high, b->high)};
      }
      case Kind::kMultiply: {
        const auto a = (*this)(e.args[0]), b = (*this)(e.args[1]);
        if (!a || !b) return std::nullopt;
        return Degree{capped(a->low + b->low), capped(a->high + b->high)};
      }
      case Kind::kDivide:
        if (!free_of_kind(e.args[1])) return std::nullopt;
        return (*this)(e.args[0]);
      case Kind::kPower: {
        const Expression& exponent = e.args[1];
        const auto base = (*this)(e.args[0]);
        if (!base || exponent.kind != Kind::kNumber) return std::nullopt;
        const double n = exponent.number;
        if (!(n >= 0 && n <= 8 && n == std::trunc(n))) return std::nullopt;
        return Degree{capped(base->low * static_cast<int>(n)), capped(base->high * static_cast<int>(n))};
      }
      default:
        return std::nullopt;
    }
  }

  SymbolKind kind_;
  std::unordered_map<const Expression*, std::optional<Degree>> memo_;
  std::unordered_map<const Expression*, bool> free_;
};

std::optional<Degree> degree_in(const Expression& e, SymbolKind kind) { return DegreeIn(kind)(e); }

/// Most terms flatten_sum lists: a sum of definitions that are sums of earlier ones (d2 = d1 + d1,
/// ...) written out has exponentially many; beyond this many the structure is not recognised (the
/// test is sufficient, not necessary: energy-momentum is then not offered).
constexpr std::size_t kMaxSumTerms = 100000;

/// The terms of a sum, with their signs: a − (b + c) gives (a, +), (b, −), (c, −); false when there
/// are more than kMaxSumTerms.
bool flatten_sum(const Expression& e, bool negative, std::vector<std::pair<const Expression*, bool>>& terms) {
  if (terms.size() > kMaxSumTerms) return false;
  switch (e.kind) {
    case Kind::kAdd:
      return flatten_sum(e.args[0], negative, terms) && flatten_sum(e.args[1], negative, terms);
    case Kind::kSubtract:
      return flatten_sum(e.args[0], negative, terms) && flatten_sum(e.args[1], !negative, terms);
    case Kind::kNegate:
      return flatten_sum(e.args[0], !negative, terms);
    default:
      terms.emplace_back(&e, negative);
      return terms.size() <= kMaxSumTerms;
  }
}

Expression binary(Kind kind, Expression a, Expression b) {
  Expression e;
  e.kind = kind;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}

Expression number(double x) {
  Expression e;
  e.kind = Kind::kNumber;
  e.number = x;
  return e;
}

/// Σ ± terms as one tree (0 when there are none).
Expression signed_sum(const std::vector<std::pair<const Expression*, bool>>& terms) {
  std::optional<Expression> sum;
  for (const auto& [term, negative] : terms) {
    if (!sum) {
      if (negative) {
        Expression neg;
        neg.kind = Kind::kNegate;
        neg.args.push_back(*term);
        sum = std::move(neg);
      } else {
        sum = *term;
      }
    } else {
      sum = binary(negative ? Kind::kSubtract : Kind::kAdd, std::move(*sum), *term);
    }
  }
  return sum ? std::move(*sum) : number(0.0);
}

/// L split as T(q̇) − V(q) when the structure allows (ModelStructure::constant_mass).
struct KineticPotential {
  Expression kinetic;    ///< T(q̇)
  Expression potential;  ///< V(q)
};

std::optional<KineticPotential> split_constant_mass(const Expression& lagrangian) {
  std::vector<std::pair<const Expression*, bool>> terms, kinetic, potential;
  if (!flatten_sum(lagrangian, false, terms)) return std::nullopt;
  DegreeIn velocity_degree(SymbolKind::kVelocity);
  for (const auto& term : terms) {
    const Expression& e = *term.first;
    if (!depends_on(e, SymbolKind::kVelocity)) {
      potential.emplace_back(term.first, !term.second);  // V = −(the velocity-free part of L)
      continue;
    }
    const auto d = velocity_degree(e);
    if (depends_on(e, SymbolKind::kCoordinate) || depends_on(e, SymbolKind::kTime) ||
        depends_on(e, SymbolKind::kControl) || !d || d->low != 2 || d->high != 2)
      return std::nullopt;
    kinetic.push_back(term);
  }
  return KineticPotential{signed_sum(kinetic), signed_sum(potential)};
}

}  // namespace

ModelStructure analyse_structure(const ModelDescription& model) {
  ModelStructure s;
  s.constant_mass = split_constant_mass(model.lagrangian).has_value();
  s.quadratic_constraints = std::all_of(model.constraints.begin(), model.constraints.end(), [](const Expression& g) {
    const auto d = degree_in(g, SymbolKind::kCoordinate);
    return d && d->high <= 2;
  });
  s.forced = !model.forces.empty();
  return s;
}

}  // namespace mechint::model_file
