// `[definitions]` of model files (DESIGN §6) and the symbolic derivatives behind their NAME_dot
// (src/model_file/symbolic.hpp). A model written with definitions is the model written out: the
// DESIGN's cart-pole against examples/models/cart-pole.toml, examples/models/pendulum-chain-5.toml
// against the built-in chain's own Lagrangian. NAME_dot is the derivative along the motion, checked
// with dual numbers for every function of the grammar (the one-sided branch of abs, min and max at
// a tie included). Every misuse is refused at its file:line:column, and definitions that grow
// exponentially are refused where the budget is crossed while a 30-link chain fits comfortably.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mechint/core/errors.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "model_file/model_structure.hpp"
#include "model_file/evaluate.hpp"
#include "model_file/expression_parser.hpp"
#include "model_file/model_checks.hpp"
#include "model_file/model_file.hpp"
#include "model_file/symbolic.hpp"

namespace {

using namespace mechint::model_file;

constexpr int kVariables = 16;  // q and v of the small models below
using Gradient = Eigen::Matrix<double, kVariables, 1>;
using Dual = Eigen::AutoDiffScalar<Gradient>;

std::vector<double> parameter_values(const ModelDescription& m) {
  std::vector<double> p;
  for (const auto& x : m.parameters) p.push_back(x.value);
  return p;
}

/// Values at (q, v, u, t) with the gradient seeded along `dq`, `dv` and `dt` in direction 0, or
/// (when `full`) with q_i, v_i as variables i and n + i.
SymbolValues<Dual> duals(const ModelDescription& m, const std::vector<double>& q, const std::vector<double>& v,
                         double t, const std::vector<double>& dq, double dt, bool full) {
  const auto n = static_cast<int>(q.size());
  SymbolValues<Dual> s;
  s.parameters = parameter_values(m);
  for (int i = 0; i < n; ++i) {
    Dual x(q[i], Gradient::Zero()), y(v[i], Gradient::Zero());
    if (full) {
      x.derivatives()[i] = 1.0;
      y.derivatives()[n + i] = 1.0;
    } else {
      x.derivatives()[0] = dq[i];
    }
    s.q.push_back(x);
    s.v.push_back(y);
  }
  for (std::size_t i = 0; i < m.controls.size(); ++i) s.controls.emplace_back(0.3, Gradient::Zero());
  s.t = Dual(t, Gradient::Zero());
  s.t.derivatives()[0] = dt;
  return s;
}

/// Random points around `center`, fixed by the seed.
std::vector<std::vector<double>> around(const std::vector<double>& center, double spread, int count) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-spread, spread);
  std::vector<std::vector<double>> points;
  for (int k = 0; k < count; ++k) {
    std::vector<double> x = center;
    for (double& c : x) c += uniform(random);
    points.push_back(x);
  }
  return points;
}

void expect_relative(double actual, double expected, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), 1e-12 * std::max(1.0, std::abs(expected)))
      << what << ": " << actual << " vs " << expected;
}

/// The message of the InvalidInput `text` is refused with ("" when accepted).
std::string refusal(const std::string& text) {
  try {
    parse_model_text(text, "m.toml");
  } catch (const mechint::InvalidInput& e) {
    return e.what();
  }
  return "";
}

// ---- a model with definitions is the model written out ---------------------------------------------

TEST(Definitions, TheExampleOfTheDesignIsTheCartPole) {
  const ModelDescription written = read_model_file(MECHINT_SOURCE_DIR "/examples/models/cart-pole.toml");
  const ModelDescription defined = parse_model_text(R"toml(
name = "cart-pole"
coordinates = ["x", "th"]
periodic = ["th"]
parameters = { M = 1.0, m = 0.3, l = 0.5, g = 9.81 }
lagrangian = "0.5*M*x_dot^2 + 0.5*m*(bob_x_dot^2 + bob_y_dot^2) - m*g*bob_y"
symmetries = [["1", "0"]]
[definitions]
bob_x = "x + l*sin(th)"
bob_y = "l*cos(th)"
)toml",
                                                    "defined.toml");
  for (const auto& x : around({0.2, 2.5, -0.4, 1.1}, 1.0, 5)) {
    const std::vector<double> q = {x[0], x[1]}, v = {x[2], x[3]};
    const Dual a = evaluate(written.lagrangian, duals(written, q, v, 0.0, {}, 0.0, true));
    const Dual b = evaluate(defined.lagrangian, duals(defined, q, v, 0.0, {}, 0.0, true));
    expect_relative(b.value(), a.value(), "L");
    for (int i = 0; i < 4; ++i) expect_relative(b.derivatives()[i], a.derivatives()[i], "dL/dx" + std::to_string(i));
  }
  // What the consumers of trees derive is unchanged: the symmetry is checked on the expanded L.
  const SymmetryCheck checked = check_symmetries(defined);
  EXPECT_GT(checked.points, 0);
  EXPECT_EQ(checked.points, check_symmetries(written).points);
}

TEST(Definitions, TheChainExampleIsTheBuiltInChain) {
  const ModelDescription m = read_model_file(MECHINT_SOURCE_DIR "/examples/models/pendulum-chain-5.toml");
  ASSERT_EQ(m.coordinates.size(), 5u);
  const mechint::systems::PendulumChain<5> chain;  // unit masses and lengths, g = 9.81, as the file
  for (const auto& x : around(std::vector<double>(10, 0.0), 1.5, 5)) {
    const std::vector<double> q(x.begin(), x.begin() + 5), v(x.begin() + 5, x.end());
    const Dual L = evaluate(m.lagrangian, duals(m, q, v, 0.0, {}, 0.0, true));
    mechint::Vec<mechint::Jet<10>, 5> theta, theta_dot;
    for (int i = 0; i < 5; ++i) {
      theta[i] = mechint::Jet<10>(q[i], i);
      theta_dot[i] = mechint::Jet<10>(v[i], 5 + i);
    }
    const mechint::Jet<10> reference = chain.lagrangian(theta, theta_dot);
    expect_relative(L.value(), reference.a, "L");
    for (int i = 0; i < 10; ++i) expect_relative(L.derivatives()[i], reference.v[i], "dL/dx" + std::to_string(i));
  }
}

TEST(Definitions, AreUsableInEveryExpressionOfTheFile) {
  const std::string head = "name = \"m\"\ncoordinates = [\"x\", \"y\", \"z\"]\nparameters = { l = 1.0, c = 0.1 }\n";
  const std::string definitions = R"toml(
[definitions]
r2 = "x^2 + y^2 + z^2"
speed2 = "x_dot^2 + y_dot^2 + z_dot^2"
height = "9.81*z"
)toml";
  // The same model twice, with and without definitions: the same trees, so the same doubles.
  const auto compare = [&](const std::string& defined_text, const std::string& more_definitions,
                           const std::string& written_text) {
    const ModelDescription defined = parse_model_text(head + defined_text + definitions + more_definitions, "defined.toml");
    const ModelDescription written = parse_model_text(head + written_text, "written.toml");
    for (const auto& x : around({0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.7, 0.25}, 0.5, 4)) {
      const std::vector<double> u = written.controls.empty() ? std::vector<double>{} : std::vector<double>{x[6]};
      const SymbolValues<double> s{{x[0], x[1], x[2]}, {x[3], x[4], x[5]}, {1.0, 0.1}, u, x[7]};
      const auto same = [&](const std::vector<Expression>& a, const std::vector<Expression>& b, const std::string& what) {
        ASSERT_EQ(a.size(), b.size()) << what;
        for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(evaluate(a[i], s), evaluate(b[i], s)) << what << i;
      };
      same({defined.lagrangian}, {written.lagrangian}, "L");
      same(defined.constraints, written.constraints, "g");
      same(defined.unilateral, written.unilateral, "wall");
      same(defined.domain, written.domain, "domain");
      same(defined.forces, written.forces, "f");
      ASSERT_EQ(defined.symmetries.size(), written.symmetries.size());
      for (std::size_t k = 0; k < defined.symmetries.size(); ++k) same(defined.symmetries[k], written.symmetries[k], "xi");
    }
    // The structure read from the trees is the same (a constant mass matrix, here).
    EXPECT_TRUE(analyse_structure(defined).constant_mass);
    EXPECT_TRUE(analyse_structure(written).constant_mass);
  };
  compare(R"toml(
lagrangian = "0.5*speed2 - height"
constraints = ["r2 - l^2"]
symmetries = [["-y*r2", "x*r2", "0"]]
forces = ["-c*x_dot + push", "-c*y_dot", "-c*z_dot"]
controls = ["u"]
domain = ["r2 - 0.01"]
)toml",
          "push = \"u*cos(t)\"\n", R"toml(
lagrangian = "0.5*(x_dot^2 + y_dot^2 + z_dot^2) - 9.81*z"
constraints = ["x^2 + y^2 + z^2 - l^2"]
symmetries = [["-y*(x^2 + y^2 + z^2)", "x*(x^2 + y^2 + z^2)", "0"]]
forces = ["-c*x_dot + u*cos(t)", "-c*y_dot", "-c*z_dot"]
controls = ["u"]
domain = ["x^2 + y^2 + z^2 - 0.01"]
)toml");
  compare(R"toml(
lagrangian = "0.5*speed2 - height"
unilateral = ["height + 2", "r2"]
)toml",
          "", R"toml(
lagrangian = "0.5*(x_dot^2 + y_dot^2 + z_dot^2) - 9.81*z"
unilateral = ["9.81*z + 2", "x^2 + y^2 + z^2"]
)toml");
}

TEST(Definitions, AUseSitsWhereTheNameIsUsedAndItsPartsWhereTheDefinitionWritesThem) {
  const ModelDescription m = parse_model_text(R"toml(name = "m"
coordinates = ["x", "y"]
lagrangian = "0.5*(x_dot^2 + y_dot^2)"
constraints = ["r - 1"]
[definitions]
r = "sqrt(x^2 + y^2)"
)toml",
                                              "m.toml");
  // constraints = ["r - 1"]: the string's quote is at column 16, r at 17, the number at 21. The
  // definition's nodes are shared by every use, not copied: its root is located at the use, its
  // parts in the definition's own text (line 6, `r = "sqrt(x^2 + y^2)"`, the quote at column 5).
  const Expression& g = m.constraints.at(0);
  ASSERT_EQ(g.kind, Expression::Kind::kSubtract);
  EXPECT_EQ(g.args[1].position.column, 21);
  const Expression& r = g.args[0];
  EXPECT_EQ(r.position.line, 4);
  EXPECT_EQ(r.position.column, 17);
  ASSERT_EQ(r.kind, Expression::Kind::kCall);
  std::function<void(const Expression&)> in_definition = [&](const Expression& e) {
    EXPECT_EQ(e.position.line, 6);
    EXPECT_GE(e.position.column, 6);
    for (const auto& a : e.args) in_definition(a);
  };
  for (const auto& a : r.args) in_definition(a);
}

// ---- NAME_dot -----------------------------------------------------------------------------------

/// A model of two coordinates whose forces are (a_dot, a) for the definition a = `expression`.
ModelDescription with_dot(const std::string& expression) {
  return parse_model_text("name = \"m\"\ncoordinates = [\"x\", \"y\"]\nparameters = { k = 1.7 }\n"
                          "lagrangian = \"0.5*(x_dot^2 + y_dot^2)\"\nforces = [\"a_dot\", \"a\"]\n"
                          "[definitions]\na = \"" + expression + "\"\n",
                          "m.toml");
}

TEST(DefinitionDots, AreTheDerivativeAlongTheMotionForEveryFunction) {
  // d/ds a(q + s q_dot, t + s) at s = 0, by dual numbers on the tree of a, against the tree of
  // a_dot, built by symbolic differentiation.
  const std::vector<std::string> expressions = {
      "sin(x*y)",     "cos(x) + t*x",   "tan(0.3*x)",      "asin(0.4*y)",   "acos(0.3*x)",  "atan(x*y)",
      "atan2(y, x + 3)", "sinh(x)",     "cosh(y)*x",       "tanh(x - y)",   "exp(x*y)",     "log(2 + x^2)",
      "sqrt(3 + y^2)", "abs(x - y)",    "pow(2 + x^2, y)", "(1.5 + y^2)^x", "min(x, y^2)",  "max(x*y, 0.2)",
      "x^-1.5",       "y^3/x",          "k^x",             "t^2*x",         "2^t",          "-(-x)*y",
      "x*0 + y*1",    "k"};
  for (const auto& text : expressions) {
    const ModelDescription m = with_dot(text);
    for (const auto& x : around({0.7, 0.4, 0.3, -0.6, 0.2}, 0.25, 4)) {
      const std::vector<double> q = {x[0], x[1]}, v = {x[2], x[3]};
      const double t = x[4];
      const SymbolValues<double> plain{q, v, {1.7}, {}, t};
      const Dual along = evaluate(m.forces[1], duals(m, q, v, t, v, 1.0, false));
      expect_relative(evaluate(m.forces[0], plain), along.derivatives()[0], text + "_dot");
    }
  }
}

TEST(DefinitionDots, TakeTheBranchOfTheDualNumbersAtTies) {
  // At a tie the derivative is the one-sided branch that model_file/math.hpp's dual numbers take:
  // d|x| = +dx at x = 0, d min(a, b) = da and d max(a, b) = da when a = b.
  for (const std::string text : {"abs(x)", "abs(-x)", "min(x, y)", "max(x, y)", "min(y, x)", "max(y, x)"}) {
    const ModelDescription m = with_dot(text);
    for (const double xdot : {0.5, -0.5}) {
      const std::vector<double> q = {0.0, 0.0}, v = {xdot, 2.0};
      const SymbolValues<double> plain{q, v, {1.7}, {}, 0.0};
      const Dual along = evaluate(m.forces[1], duals(m, q, v, 0.0, v, 1.0, false));
      EXPECT_EQ(evaluate(m.forces[0], plain), along.derivatives()[0]) << text << " with x_dot = " << xdot;
    }
  }
  // And the branches by name: abs takes the right branch at 0, min and max their first argument.
  const SymbolValues<double> tie{{0.0, 0.0}, {-0.5, 2.0}, {1.7}, {}, 0.0};
  EXPECT_EQ(evaluate(with_dot("abs(x)").forces[0], tie), -0.5);
  EXPECT_EQ(evaluate(with_dot("min(x, y)").forces[0], tie), -0.5);
  EXPECT_EQ(evaluate(with_dot("max(y, x)").forces[0], tie), 2.0);
}

TEST(DefinitionDots, OfADefinitionUsingAnEarlierDot) {
  // b uses a_dot (a velocity): b has no dot of its own, but may be used in the Lagrangian.
  const ModelDescription m = parse_model_text(R"toml(name = "m"
coordinates = ["x"]
lagrangian = "0.5*b^2"
[definitions]
a = "2*sin(x)"
b = "a_dot + x_dot"
)toml",
                                              "m.toml");
  const SymbolValues<double> s{{0.4}, {1.3}, {}, {}, 0.0};
  expect_relative(evaluate(m.lagrangian, s), 0.5 * std::pow(2 * std::cos(0.4) * 1.3 + 1.3, 2), "L");
}

// ---- the symbolic derivatives themselves ---------------------------------------------------------

TEST(Symbolic, DerivativesWithRespectToEveryKindOfVariable) {
  const ModelDescription m = parse_model_text(R"toml(name = "m"
coordinates = ["x", "y"]
parameters = { k = 0.6 }
controls = ["u"]
lagrangian = "0.5*x_dot^2"
forces = ["""sin(x*y_dot) + cos(u*t) + tan(0.2*x) + asin(0.3*y) + acos(0.2*x_dot) + atan(u) + atan2(y, x + 2)
  + sinh(t) + cosh(y) + tanh(x_dot) + exp(k*u) + log(1 + x^2) + sqrt(2 + y_dot^2) + abs(u - x) + pow(1 + y^2, x_dot)
  + (2 + t^2)^u + min(x, u) + max(y_dot, t) + x^-2 + y^1.5 + k^y + t^2 + x/y_dot - (-u)""", "0"]
[initial]
x = 0.8
y = 0.5
)toml",
                                              "m.toml");
  const Expression& f = m.forces.at(0);
  const std::vector<symbolic::Variable> variables = {{SymbolKind::kCoordinate, 0}, {SymbolKind::kCoordinate, 1},
                                                     {SymbolKind::kVelocity, 0},   {SymbolKind::kVelocity, 1},
                                                     {SymbolKind::kControl, 0},    {SymbolKind::kTime, 0}};
  for (const auto& p : around({0.8, 0.5, 0.3, 0.9, 0.35, 0.45}, 0.1, 4)) {
    for (std::size_t k = 0; k < variables.size(); ++k) {
      SymbolValues<Dual> s;
      s.parameters = {0.6};
      const auto value = [&](double x, std::size_t which) {
        Dual d(x, Gradient::Zero());
        d.derivatives()[0] = which == k ? 1.0 : 0.0;
        return d;
      };
      s.q = {value(p[0], 0), value(p[1], 1)};
      s.v = {value(p[2], 2), value(p[3], 3)};
      s.controls = {value(p[4], 4)};
      s.t = value(p[5], 5);
      const SymbolValues<double> plain{{p[0], p[1]}, {p[2], p[3]}, {0.6}, {p[4]}, p[5]};
      expect_relative(evaluate(symbolic::derivative(f, variables[k]), plain), evaluate(f, s).derivatives()[0],
                      "variable " + std::to_string(k));
    }
  }
}

TEST(Symbolic, SimplifiesZerosOnesAndNumbers) {
  const ModelDescription m = parse_model_text(R"toml(name = "m"
coordinates = ["x", "y", "z"]
lagrangian = "0.5*x_dot^2"
constraints = ["x^2 + 3*y", "-(-x)*1 + 0*y + 2*3"]
)toml",
                                              "m.toml");
  const symbolic::Variable x{SymbolKind::kCoordinate, 0}, y{SymbolKind::kCoordinate, 1}, v{SymbolKind::kVelocity, 0};
  const auto is_number = [](const Expression& e, double value) {
    return e.kind == Expression::Kind::kNumber && e.number == value;
  };
  EXPECT_TRUE(is_number(symbolic::derivative(m.constraints[0], v), 0.0));  // free of the variable: 0
  EXPECT_TRUE(is_number(symbolic::derivative(m.constraints[0], y), 3.0));  // 3*1 folded
  const Expression dx = symbolic::derivative(m.constraints[0], x);         // 2*x
  EXPECT_EQ(symbolic::measure(dx).nodes, 3u);
  EXPECT_TRUE(is_number(symbolic::derivative(m.constraints[1], x), 1.0));  // -(-x)*1 + 0*y + 6
  EXPECT_TRUE(is_number(symbolic::derivative(m.constraints[1], y), 0.0));
}

TEST(Symbolic, ConstantPowersOfANegativeBaseAndVariablePowers) {
  const ModelDescription m = parse_model_text(R"toml(name = "m"
coordinates = ["x", "y"]
parameters = { n = 3.0 }
lagrangian = "0.5*x_dot^2"
constraints = ["x^3 + x^n"]
unilateral = ["x^y"]
)toml",
                                              "m.toml");
  const symbolic::Variable x{SymbolKind::kCoordinate, 0}, y{SymbolKind::kCoordinate, 1};
  // An integer power, literal or a parameter, is defined for x < 0, and so is its derivative.
  const SymbolValues<double> negative{{-2.0, 0.0}, {0.0, 0.0}, {3.0}, {}, 0.0};
  EXPECT_EQ(evaluate(symbolic::derivative(m.constraints[0], x), negative), 24.0);
  // x^y = exp(y log x): d/dx = y x^(y-1), d/dy = x^y log x.
  const SymbolValues<double> s{{1.7, 0.6}, {0.0, 0.0}, {3.0}, {}, 0.0};
  expect_relative(evaluate(symbolic::derivative(m.unilateral[0], x), s), 0.6 * std::pow(1.7, -0.4), "d/dx x^y");
  expect_relative(evaluate(symbolic::derivative(m.unilateral[0], y), s), std::pow(1.7, 0.6) * std::log(1.7),
                  "d/dy x^y");
}

// ---- refusals --------------------------------------------------------------------------------------

struct Refused {
  std::string text;
  std::string where;  ///< "LINE:COLUMN"
  std::string says;
};

TEST(DefinitionErrors, AreLocatedAndSayWhatIsWrong) {
  const std::string head =
      "name = \"m\"\ncoordinates = [\"x\", \"y\"]\nparameters = { l = 1.0, r_dot = 2.0 }\ncontrols = [\"u\"]\n";
  const std::string forces = "forces = [\"u\", \"0\"]\n";
  const std::vector<Refused> cases = {
      {head + forces + "lagrangian = \"x_dot^2 + a\"\n[definitions]\na = \"b + 1\"\nb = \"x\"\n", "8:6",
       "definition 'b' is used before it is defined (at 9:1)"},
      {head + forces + "lagrangian = \"x_dot^2 + a\"\n[definitions]\na = \"a + 1\"\n", "8:6", "definition 'a' uses itself"},
      {head + forces + "lagrangian = \"x_dot^2 + a\"\n[definitions]\na = \"y + q\"\n", "8:10",
       "unknown name 'q' in a definition"},
      {head + forces + "lagrangian = \"x_dot^2 + zz\"\n[definitions]\na = \"y\"\n", "6:25", "unknown name 'zz'"},
      {head + forces + "lagrangian = \"x_dot^2 + a_dot\"\n[definitions]\na = \"x_dot*y\"\n", "6:25",
       "a_dot: definition 'a' uses the velocity x_dot, so it has no time derivative"},
      {head + forces + "lagrangian = \"x_dot^2\"\nconstraints = [\"a_dot\"]\n[definitions]\na = \"u*x\"\n", "7:17",
       "a_dot: definition 'a' uses the control u"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nx = \"y\"\n", "8:1",
       "definition name 'x' is already the name of a coordinate"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nl = \"y\"\n", "8:1",
       "definition name 'l' is already the name of a parameter"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nu = \"y\"\n", "8:1",
       "definition name 'u' is already the name of a control"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nJ1 = \"y\"\n", "8:1", "name of an output column"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nenergy = \"y\"\n", "8:1", "name of an output column"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nr = \"y\"\n", "8:1",
       "its time derivative r_dot is already the name of a parameter"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nx_dot = \"y\"\n", "8:1", "ends in _dot"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nsin = \"y\"\n", "8:1", "shadows the function sin()"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\nt = \"y\"\n", "8:1", "shadows the time t"},
      {head + forces + "lagrangian = \"x_dot^2\"\n[definitions]\na = 3\n", "8:5", "definition a must be a string"},
      {head + forces + "lagrangian = \"x_dot^2\"\nconstraints = [\"2*v\"]\n[definitions]\nv = \"x_dot*y\"\n", "7:19",
       "definition 'v' in a constraint uses the velocity x_dot: constraints depend on coordinates only"},
      {head + forces + "lagrangian = \"x_dot^2 + a\"\n[definitions]\na = \"t*y\"\n", "6:25",
       "definition 'a' in the Lagrangian uses the time t"},
      {head + forces + "lagrangian = \"x_dot^2 + a\"\n[definitions]\na = \"u*y\"\n", "6:25",
       "definition 'a' in the Lagrangian uses the control u: controls may appear in forces only"},
      {head + forces + "lagrangian = \"x_dot^2 + a_dot\"\n[definitions]\na = \"t*y\"\n", "6:25",
       "the time derivative a_dot of definition 'a' in the Lagrangian uses the time t"},
      {head + forces + "lagrangian = \"x_dot^2\"\nsymmetries = [[\"a_dot\", \"0\"]]\n[definitions]\na = \"x*y\"\n", "7:17",
       "in a symmetry generator uses the velocity"},
      {head + forces + "lagrangian = \"x_dot^2 + a(1)\"\n[definitions]\na = \"y\"\n", "6:25", "'a' is not a function"},
  };
  for (const Refused& c : cases) {
    const std::string message = refusal(c.text);
    EXPECT_EQ(message.rfind("m.toml:" + c.where + ": ", 0), 0u) << message << "\n expected at " << c.where;
    EXPECT_NE(message.find(c.says), std::string::npos) << message << "\n expected: " << c.says;
  }
}

TEST(Definitions, DefinitionsThatUseAnEarlierOneTwiceStayLinear) {
  // d1 = x*y and d_k = d_{k-1}*d_{k-1}: written out as a tree d40 has 2^41 - 1 nodes (such files
  // were refused beyond 100 000); shared, it has one node per definition.
  std::string text = "name = \"m\"\ncoordinates = [\"x\", \"y\"]\nlagrangian = \"x_dot^2 + y_dot^2 + d40\"\n"
                     "[initial]\nx = 1.0\ny = 1.0\n[definitions]\nd1 = \"x*y\"\n";
  for (int k = 2; k <= 40; ++k)
    text += "d" + std::to_string(k) + " = \"d" + std::to_string(k - 1) + "*d" + std::to_string(k - 1) + "\"\n";
  const ModelDescription m = parse_model_text(text, "m.toml");
  const symbolic::TreeSize size = symbolic::measure(m.lagrangian);
  EXPECT_LT(size.distinct, 100u);
  EXPECT_GT(size.nodes, std::size_t{1} << 40);
  // Evaluated once per shared node: (x y)^(2^39) at x = y = 1 is 1.
  const SymbolValues<double> at{{1.0, 1.0}, {0.0, 0.0}, {}, {}, 0.0};
  EXPECT_EQ(evaluate(m.lagrangian, at), 1.0);
  // Its derivatives too: ∂L/∂x = 2^39 (x y)^(2^39 - 1) y = 2^39 at x = y = 1.
  symbolic::Graph g;
  const symbolic::NodeId dx = g.derivative(g.import(m.lagrangian), {SymbolKind::kCoordinate, 0});
  EXPECT_LT(g.size(), 1000u);
  EXPECT_EQ(evaluate(*g.to_shared_expression(dx, {}), at), std::ldexp(1.0, 39));
}

TEST(DefinitionErrors, TooDeepAnExpansionIsRefused) {
  // Each definition adds a chain of 200 terms to the one before: deeper than kMaxExpandedDepth.
  std::string text = "name = \"m\"\ncoordinates = [\"x\"]\nlagrangian = \"x_dot^2 + d30\"\n[definitions]\n";
  std::string terms;
  for (int i = 0; i < 200; ++i) terms += " + x";
  text += "d1 = \"x" + terms + "\"\n";
  for (int k = 2; k <= 30; ++k) text += "d" + std::to_string(k) + " = \"d" + std::to_string(k - 1) + terms + "\"\n";
  const std::string message = refusal(text);
  EXPECT_NE(message.find("levels deep, more than the limit of " + std::to_string(kMaxExpandedDepth)), std::string::npos)
      << message;
}

TEST(Definitions, AChainsExpressionsGrowLinearlyWithItsLinks) {
  // Positions of n masses from relative angles, L from their time derivatives: each link adds the
  // same few distinct nodes (the tree written out grows as n³; 30 links were refused).
  const auto lagrangian_size = [](int links) {
    std::string coordinates, lagrangian, definitions;
    for (int i = 1; i <= links; ++i) {
      const std::string k = std::to_string(i), before = std::to_string(i - 1);
      coordinates += std::string(i > 1 ? ", " : "") + "\"q" + k + "\"";
      lagrangian += std::string(i > 1 ? " + " : "") + "0.5*m*(x" + k + "_dot^2 + y" + k + "_dot^2) - m*g*y" + k;
      definitions += "a" + k + " = \"" + (i > 1 ? "a" + before + " + " : "") + "q" + k + "\"\n";
      definitions += "x" + k + " = \"" + (i > 1 ? "x" + before + " + " : "") + "l*sin(a" + k + ")\"\n";
      definitions += "y" + k + " = \"" + (i > 1 ? "y" + before + " - " : "-") + "l*cos(a" + k + ")\"\n";
    }
    const ModelDescription m = parse_model_text("name = \"chain\"\ncoordinates = [" + coordinates +
                                                    "]\nparameters = { m = 1.0, l = 1.0, g = 9.81 }\n" + "lagrangian = \"" +
                                                    lagrangian + "\"\n[definitions]\n" + definitions,
                                                "chain.toml");
    return symbolic::measure(m.lagrangian);
  };
  const symbolic::TreeSize s50 = lagrangian_size(50), s100 = lagrangian_size(100);
  EXPECT_LT(static_cast<double>(s100.distinct) / static_cast<double>(s50.distinct), 2.2);
  EXPECT_LT(4 * s100.depth, kMaxExpandedDepth);
}

}  // namespace
