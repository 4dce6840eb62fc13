#include "model_file/model_structure.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace mechint::model_file {
namespace {

using Kind = Expression::Kind;

bool depends_on(const Expression& e, SymbolKind kind) {
  if (e.kind == Kind::kSymbol) return e.symbol == kind;
  return std::any_of(e.args.begin(), e.args.end(), [&](const Expression& a) { return depends_on(a, kind); });
}

/// Lowest and highest degree of `e` as a polynomial in the symbols of one kind (coefficients may be
/// any expression free of them); nullopt when it is not such a polynomial.
struct Degree {
  int low = 0, high = 0;
};

std::optional<Degree> degree_in(const Expression& e, SymbolKind kind) {
  if (!depends_on(e, kind)) return Degree{};
  switch (e.kind) {
    case Kind::kSymbol:
      return Degree{1, 1};
    case Kind::kNegate:
      return degree_in(e.args[0], kind);
    case Kind::kAdd:
    case Kind::kSubtract: {
      const auto a = degree_in(e.args[0], kind), b = degree_in(e.args[1], kind);
      if (!a || !b) return std::nullopt;
      return Degree{std::min(a->low, b->low), std::max(a->high, b->high)};
    }
    case Kind::kMultiply: {
      const auto a = degree_in(e.args[0], kind), b = degree_in(e.args[1], kind);
      if (!a || !b) return std::nullopt;
      return Degree{a->low + b->low, a->high + b->high};
    }
    case Kind::kDivide:
      if (depends_on(e.args[1], kind)) return std::nullopt;
      return degree_in(e.args[0], kind);
    case Kind::kPower: {
      const Expression& exponent = e.args[1];
      const auto base = degree_in(e.args[0], kind);
      if (!base || exponent.kind != Kind::kNumber) return std::nullopt;
      const double n = exponent.number;
      if (!(n >= 0 && n <= 8 && n == std::trunc(n))) return std::nullopt;
      return Degree{base->low * static_cast<int>(n), base->high * static_cast<int>(n)};
    }
    default:
      return std::nullopt;
  }
}

/// The terms of a sum, with their signs: a − (b + c) gives (a, +), (b, −), (c, −).
void flatten_sum(const Expression& e, bool negative, std::vector<std::pair<const Expression*, bool>>& terms) {
  switch (e.kind) {
    case Kind::kAdd:
      flatten_sum(e.args[0], negative, terms);
      flatten_sum(e.args[1], negative, terms);
      break;
    case Kind::kSubtract:
      flatten_sum(e.args[0], negative, terms);
      flatten_sum(e.args[1], !negative, terms);
      break;
    case Kind::kNegate:
      flatten_sum(e.args[0], !negative, terms);
      break;
    default:
      terms.emplace_back(&e, negative);
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
  flatten_sum(lagrangian, false, terms);
  for (const auto& term : terms) {
    const Expression& e = *term.first;
    if (!depends_on(e, SymbolKind::kVelocity)) {
      potential.emplace_back(term.first, !term.second);  // V = −(the velocity-free part of L)
      continue;
    }
    const auto d = degree_in(e, SymbolKind::kVelocity);
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
