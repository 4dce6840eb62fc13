// The functions generated models call (src/model_file/math.hpp) give the same value and the same
// first and second derivatives for every scalar type the integrators use: ceres jets, jets of
// jets, and Eigen's nested AutoDiffScalar, checked against each other and against the closed-form
// derivatives of each function.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "model_file/math.hpp"

namespace {

using namespace mechint;
namespace math = mechint::model_file::math;

/// f(x) and its derivatives f'(x), f''(x) for a function of one variable, by each AD type.
struct Derivatives {
  double value, first, second;
};

template <class F>
Derivatives by_jet2(const F& f, double x) {
  Jet2<1> xj(Jet<1>(x, 0), 0);
  const Jet2<1> r = f(xj);
  return {r.a.a, r.a.v[0], r.v[0].v[0]};
}

template <class F>
Derivatives by_hessian2(const F& f, double x) {
  VecD<1> xv(x), yv(x);
  // Seed the same variable in both levels: the value's inner derivative and the outer derivative.
  Hessian2<1> xh = hessian_seed_outer<1>(xv)[0];
  xh.value() = AutoDiff1<1>(x, 1, 0);
  const Hessian2<1> r = f(xh);
  return {r.value().value(), r.value().derivatives()[0], r.derivatives()[0].derivatives()[0]};
}

template <class F>
double by_jet(const F& f, double x) {
  return f(Jet<1>(x, 0)).v[0];
}

struct Case {
  const char* name;
  double x;
  std::function<double(double)> f, df, d2f;
};

// One generic function per case, instantiated for every scalar type.
#define MECHINT_CASE(NAME, X, EXPR, DF, D2F)                                                    \
  TEST(ModelFileMath, NAME) {                                                                   \
    auto f = [](const auto& x) { using T = std::decay_t<decltype(x)>; return T(EXPR); };           \
    const double x0 = X;                                                                        \
    auto df = [](double x) { return DF; };                                                      \
    auto d2f = [](double x) { return D2F; };                                                    \
    const double value = f(x0);                                                                 \
    const Derivatives j2 = by_jet2(f, x0), h2 = by_hessian2(f, x0);                              \
    const double tol = 1e-13 * (1.0 + std::abs(value) + std::abs(df(x0)) + std::abs(d2f(x0))); \
    EXPECT_NEAR(j2.value, value, tol);                                                          \
    EXPECT_NEAR(h2.value, value, tol);                                                          \
    EXPECT_NEAR(by_jet(f, x0), df(x0), tol);                                                    \
    EXPECT_NEAR(j2.first, df(x0), tol);                                                         \
    EXPECT_NEAR(h2.first, df(x0), tol);                                                         \
    EXPECT_NEAR(j2.second, d2f(x0), tol);                                                       \
    EXPECT_NEAR(h2.second, d2f(x0), tol);                                                       \
  }

MECHINT_CASE(Sin, 0.7, math::sin(x), std::cos(x), -std::sin(x))
MECHINT_CASE(Cos, 0.7, math::cos(x), -std::sin(x), -std::cos(x))
MECHINT_CASE(Tan, 0.4, math::tan(x), 1 + std::tan(x) * std::tan(x),
             2 * std::tan(x) * (1 + std::tan(x) * std::tan(x)))
MECHINT_CASE(Asin, 0.3, math::asin(x), 1 / std::sqrt(1 - x * x), x / std::pow(1 - x * x, 1.5))
MECHINT_CASE(Acos, 0.3, math::acos(x), -1 / std::sqrt(1 - x * x), -x / std::pow(1 - x * x, 1.5))
MECHINT_CASE(Atan, 1.3, math::atan(x), 1 / (1 + x * x), -2 * x / ((1 + x * x) * (1 + x * x)))
MECHINT_CASE(Sinh, 0.6, math::sinh(x), std::cosh(x), std::sinh(x))
MECHINT_CASE(Cosh, 0.6, math::cosh(x), std::sinh(x), std::cosh(x))
MECHINT_CASE(Tanh, 0.6, math::tanh(x), 1 - std::tanh(x) * std::tanh(x),
             -2 * std::tanh(x) * (1 - std::tanh(x) * std::tanh(x)))
MECHINT_CASE(Exp, 0.6, math::exp(x), std::exp(x), std::exp(x))
MECHINT_CASE(Log, 1.7, math::log(x), 1 / x, -1 / (x * x))
MECHINT_CASE(Sqrt, 1.7, math::sqrt(x), 0.5 / std::sqrt(x), -0.25 / std::pow(x, 1.5))
MECHINT_CASE(AbsNegative, 1.2, math::abs(T(math::square(x) - math::mul(3.0, x))), -(2 * x - 3), -2.0)
MECHINT_CASE(Atan2, 0.8, math::atan2(math::mul(2.0, x), math::add(x, 1.0)),
             2.0 / (x * x + 1 + 2 * x + 4 * x * x) * 1.0,
             -2.0 * (10 * x + 2) / std::pow(5 * x * x + 2 * x + 1, 2))
MECHINT_CASE(SubFromConstant, 0.9, math::sub(2.0, math::square(x)), -2 * x, -2.0)
MECHINT_CASE(DivideConstant, 0.9, math::div(3.0, x), -3 / (x * x), 6 / (x * x * x))
MECHINT_CASE(IntegerPower, 1.3, math::constant_power(x, 5.0), 5 * std::pow(x, 4), 20 * std::pow(x, 3))
MECHINT_CASE(NegativePower, 1.3, math::constant_power(x, -3.0), -3 * std::pow(x, -4), 12 * std::pow(x, -5))
MECHINT_CASE(HalfPower, 1.3, math::constant_power(x, -1.5), -1.5 * std::pow(x, -2.5), 3.75 * std::pow(x, -3.5))
MECHINT_CASE(RealPower, 1.3, math::constant_power(x, 0.3), 0.3 * std::pow(x, -0.7), -0.21 * std::pow(x, -1.7))
MECHINT_CASE(VariablePower, 1.3, math::variable_power(x, x), std::pow(x, x) * (std::log(x) + 1),
             std::pow(x, x) * ((std::log(x) + 1) * (std::log(x) + 1) + 1 / x))
MECHINT_CASE(MinPicksSmaller, 0.4, math::min(math::square(x), x), 2 * x, 2.0)
MECHINT_CASE(MaxPicksLarger, 0.4, math::max(math::square(x), x), 1.0, 0.0)

}  // namespace
