#pragma once
/// \file
/// Evaluates an expression of a model file directly (no compilation), for any scalar type the
/// functions of model_file/math.hpp accept: `mechint check` uses it for the start's energy and
/// constraint residual before anything is compiled, and the tests compare the generated code with it.

#include <array>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
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

/// True when `e` depends on parameters and numbers only (each distinct node once).
inline bool is_constant(const Expression& e) {
  std::unordered_set<const Expression*> seen;
  std::vector<const Expression*> stack{&e};
  while (!stack.empty()) {
    const Expression* node = stack.back();
    stack.pop_back();
    if (node->kind == Expression::Kind::kSymbol && node->symbol != SymbolKind::kParameter) return false;
    for (const auto& a : node->args)
      if (seen.insert(&a).second) stack.push_back(&a);
  }
  return true;
}

/// Evaluates one expression, each shared node (a definition, a part of NAME_dot) once: the cost is
/// linear in the expression's distinct nodes, not in its size written out as a tree.
template <class T>
class Evaluator {
 public:
  explicit Evaluator(const SymbolValues<T>& s) : s_(s) {}

  T operator()(const Expression& e) {
    using K = Expression::Kind;
    switch (e.kind) {
      case K::kNumber:
        return T(e.number);
      case K::kSymbol:
        switch (e.symbol) {
          case SymbolKind::kCoordinate: return s_.q.at(e.index);
          case SymbolKind::kVelocity: return s_.v.at(e.index);
          case SymbolKind::kParameter: return T(s_.parameters.at(e.index));
          case SymbolKind::kControl: return s_.controls.at(e.index);
          case SymbolKind::kTime: return s_.t;
        }
        break;
      case K::kNegate:
        return T(-operand(e, 0));
      case K::kAdd:
        return T(operand(e, 0) + operand(e, 1));
      case K::kSubtract:
        return T(operand(e, 0) - operand(e, 1));
      case K::kMultiply:
        return T(operand(e, 0) * operand(e, 1));
      case K::kDivide:
        return T(operand(e, 0) / operand(e, 1));
      case K::kPower:
        return power(e);
      case K::kCall: {
        const T a = operand(e, 0);
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
          case Function::kAtan2: return math::atan2(a, operand(e, 1));
          case Function::kPow: return power(e);
          case Function::kMin: return math::min(a, operand(e, 1));
          case Function::kMax: return math::max(a, operand(e, 1));
        }
        break;
      }
    }
    throw std::logic_error("model_file::evaluate: malformed expression tree");
  }

 private:
  /// Operand i of e; a shared node's value is computed once and remembered.
  T operand(const Expression& e, std::size_t i) {
    const ExpressionArgs::Pointer& p = e.args.pointer(i);
    if (p.use_count() <= 1) return (*this)(*p);
    if (const auto found = memo_.find(p.get()); found != memo_.end()) return found->second;
    T value = (*this)(*p);
    memo_.emplace(p.get(), value);
    return value;
  }

  /// base^exponent as the generated code computes it: a constant exponent by math::constant_power
  /// (integers by multiplication, so a negative base is fine), a variable one as exp(y log x).
  T power(const Expression& e) {
    if (is_constant(e.args[1])) return math::constant_power(operand(e, 0), mechint::scalar_value(operand(e, 1)));
    return math::variable_power(operand(e, 0), operand(e, 1));
  }

  const SymbolValues<T>& s_;
  std::unordered_map<const Expression*, T> memo_;
};

template <class T>
T evaluate(const Expression& e, const SymbolValues<T>& s) {
  return Evaluator<T>(s)(e);
}

/// An expression flattened once into its distinct nodes, operands first, for evaluating it at many
/// points (the checks' dual numbers): each evaluation is one pass over an array, without recursion
/// or lookups. The same arithmetic as evaluate().
class ExpressionProgram {
 public:
  explicit ExpressionProgram(const Expression& root) {
    std::unordered_map<const Expression*, int> index;
    std::vector<std::pair<const Expression*, bool>> stack{{&root, false}};
    while (!stack.empty()) {
      const auto [e, expanded] = stack.back();
      if (index.contains(e)) {
        stack.pop_back();
        continue;
      }
      if (!expanded) {
        stack.back().second = true;
        for (const auto& a : e->args)
          if (!index.contains(&a)) stack.emplace_back(&a, false);
        continue;
      }
      stack.pop_back();
      Step step{e, {-1, -1}, false};
      for (std::size_t i = 0; i < e->args.size() && i < 2; ++i) step.args[i] = index.at(&e->args[i]);
      const bool power = e->kind == Expression::Kind::kPower ||
                         (e->kind == Expression::Kind::kCall && e->function == Function::kPow);
      if (power) step.constant_exponent = is_constant(e->args[1]);
      index.emplace(e, static_cast<int>(steps_.size()));
      steps_.push_back(step);
    }
  }

  template <class T>
  T operator()(const SymbolValues<T>& s) const {
    std::vector<T> values;
    return (*this)(s, values);
  }

  /// With the values' storage given (kept between evaluations: a large T's array would be mapped
  /// and unmapped by every call).
  template <class T>
  T operator()(const SymbolValues<T>& s, std::vector<T>& values) const {
    values.clear();
    values.reserve(steps_.size());
    using K = Expression::Kind;
    for (const Step& step : steps_) {
      const Expression& e = *step.node;
      const auto a = [&]() -> const T& { return values[static_cast<std::size_t>(step.args[0])]; };
      const auto b = [&]() -> const T& { return values[static_cast<std::size_t>(step.args[1])]; };
      const auto power = [&]() -> T {
        if (step.constant_exponent) return math::constant_power(a(), mechint::scalar_value(b()));
        return math::variable_power(a(), b());
      };
      switch (e.kind) {
        case K::kNumber: values.push_back(T(e.number)); break;
        case K::kSymbol:
          switch (e.symbol) {
            case SymbolKind::kCoordinate: values.push_back(s.q.at(e.index)); break;
            case SymbolKind::kVelocity: values.push_back(s.v.at(e.index)); break;
            case SymbolKind::kParameter: values.push_back(T(s.parameters.at(e.index))); break;
            case SymbolKind::kControl: values.push_back(s.controls.at(e.index)); break;
            case SymbolKind::kTime: values.push_back(s.t); break;
          }
          break;
        case K::kNegate: values.push_back(T(-a())); break;
        case K::kAdd: values.push_back(T(a() + b())); break;
        case K::kSubtract: values.push_back(T(a() - b())); break;
        case K::kMultiply: values.push_back(T(a() * b())); break;
        case K::kDivide: values.push_back(T(a() / b())); break;
        case K::kPower: values.push_back(power()); break;
        case K::kCall:
          switch (e.function) {
            case Function::kSin: values.push_back(math::sin(a())); break;
            case Function::kCos: values.push_back(math::cos(a())); break;
            case Function::kTan: values.push_back(math::tan(a())); break;
            case Function::kAsin: values.push_back(math::asin(a())); break;
            case Function::kAcos: values.push_back(math::acos(a())); break;
            case Function::kAtan: values.push_back(math::atan(a())); break;
            case Function::kSinh: values.push_back(math::sinh(a())); break;
            case Function::kCosh: values.push_back(math::cosh(a())); break;
            case Function::kTanh: values.push_back(math::tanh(a())); break;
            case Function::kExp: values.push_back(math::exp(a())); break;
            case Function::kLog: values.push_back(math::log(a())); break;
            case Function::kSqrt: values.push_back(math::sqrt(a())); break;
            case Function::kAbs: values.push_back(math::abs(a())); break;
            case Function::kAtan2: values.push_back(math::atan2(a(), b())); break;
            case Function::kPow: values.push_back(power()); break;
            case Function::kMin: values.push_back(math::min(a(), b())); break;
            case Function::kMax: values.push_back(math::max(a(), b())); break;
          }
          break;
      }
    }
    return values.back();
  }

 private:
  struct Step {
    const Expression* node;
    std::array<int, 2> args;
    bool constant_exponent;
  };
  std::vector<Step> steps_;
};

}  // namespace mechint::model_file
