#pragma once
/// \file
/// Evaluates an expression tree of a model file directly (no compilation), for any scalar type the
/// functions of model_file/math.hpp accept: `mechint check` uses it for the start's energy and
/// constraint residual before anything is compiled, and the tests compare the generated code with it.

#include <stdexcept>
#include <vector>

#include "model_file/math.hpp"
#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// The values the symbols of an expression take.
template <class T>
struct SymbolValues {
  std::vector<T> q, v;           ///< per coordinate
  std::vector<double> parameters;
  std::vector<T> controls;
  T t = T(0.0);
};

/// True when `e` depends on parameters and numbers only.
inline bool is_constant(const Expression& e) {
  if (e.kind == Expression::Kind::kSymbol) return e.symbol == SymbolKind::kParameter;
  for (const auto& a : e.args)
    if (!is_constant(a)) return false;
  return true;
}

template <class T>
T evaluate(const Expression& e, const SymbolValues<T>& s);

/// base^exponent as the generated code computes it: a constant exponent by math::constant_power
/// (integers by multiplication, so a negative base is fine), a variable one as exp(y log x).
template <class T>
T evaluate_power(const Expression& base, const Expression& exponent, const SymbolValues<T>& s) {
  if (is_constant(exponent))
    return math::constant_power(evaluate(base, s), mechint::scalar_value(evaluate(exponent, s)));
  return math::variable_power(evaluate(base, s), evaluate(exponent, s));
}

template <class T>
T evaluate(const Expression& e, const SymbolValues<T>& s) {
  using K = Expression::Kind;
  switch (e.kind) {
    case K::kNumber:
      return T(e.number);
    case K::kSymbol:
      switch (e.symbol) {
        case SymbolKind::kCoordinate: return s.q.at(e.index);
        case SymbolKind::kVelocity: return s.v.at(e.index);
        case SymbolKind::kParameter: return T(s.parameters.at(e.index));
        case SymbolKind::kControl: return s.controls.at(e.index);
        case SymbolKind::kTime: return s.t;
      }
      break;
    case K::kNegate:
      return T(-evaluate(e.args[0], s));
    case K::kAdd:
      return T(evaluate(e.args[0], s) + evaluate(e.args[1], s));
    case K::kSubtract:
      return T(evaluate(e.args[0], s) - evaluate(e.args[1], s));
    case K::kMultiply:
      return T(evaluate(e.args[0], s) * evaluate(e.args[1], s));
    case K::kDivide:
      return T(evaluate(e.args[0], s) / evaluate(e.args[1], s));
    case K::kPower:
      return evaluate_power(e.args[0], e.args[1], s);
    case K::kCall: {
      const T a = evaluate(e.args[0], s);
      switch (e.function) {
        case Function::kSin: return math::sin(a);
        case Function::kCos: return math::cos(a);
        case Function::kTan: return math::tan(a);
        case Function::kAsin: return math::asin(a);
        case Function::kAcos: return math::acos(a);
        case Function::kAtan: return math::atan(a);
        case Function::kSinh: return math::sinh(a);
        case Function::kCosh: return math::cosh(a);
        case Function::kTanh: return math::tanh(a);
        case Function::kExp: return math::exp(a);
        case Function::kLog: return math::log(a);
        case Function::kSqrt: return math::sqrt(a);
        case Function::kAbs: return math::abs(a);
        case Function::kAtan2: return math::atan2(a, evaluate(e.args[1], s));
        case Function::kPow: return evaluate_power(e.args[0], e.args[1], s);
        case Function::kMin: return math::min(a, evaluate(e.args[1], s));
        case Function::kMax: return math::max(a, evaluate(e.args[1], s));
      }
      break;
    }
  }
  throw std::logic_error("model_file::evaluate: malformed expression tree");
}

}  // namespace mechint::model_file
