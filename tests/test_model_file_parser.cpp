// Model files (DESIGN §6): the TOML reader and the expression parser of src/model_file. Good files
// are checked value by value (names, positions, symbol resolution) and their expression trees are
// evaluated numerically to pin down precedence and associativity; every file of
// tests/model_files/bad must be refused with the position and message its first line announces.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "mechint/core/errors.hpp"
#include "model_file/expression_parser.hpp"
#include "model_file/model_file.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::InvalidInput;
using mechint::model_file::Expression;
using mechint::model_file::Function;
using mechint::model_file::ModelDescription;
using mechint::model_file::parse_model_text;
using mechint::model_file::read_model_file;
using mechint::model_file::SymbolKind;

/// tests/model_files: from the build's definition of the source tree, else next to this file.
fs::path model_files_dir() {
#if defined(MECHINT_MODEL_FILES_DIR)
  return MECHINT_MODEL_FILES_DIR;
#elif defined(MECHINT_SOURCE_DIR)
  return fs::path(MECHINT_SOURCE_DIR) / "tests" / "model_files";
#else
  return fs::path(__FILE__).parent_path() / "model_files";
#endif
}

/// Values of the symbols for evaluate().
struct Values {
  std::vector<double> q, v, parameters, u;
  double t = 0.0;
};

/// A direct evaluation of a tree, independent of the code generator.
double evaluate(const Expression& e, const Values& values) {
  const auto arg = [&](std::size_t i) { return evaluate(e.args.at(i), values); };
  switch (e.kind) {
    case Expression::Kind::kNumber: return e.number;
    case Expression::Kind::kSymbol:
      switch (e.symbol) {
        case SymbolKind::kCoordinate: return values.q.at(e.index);
        case SymbolKind::kVelocity: return values.v.at(e.index);
        case SymbolKind::kParameter: return values.parameters.at(e.index);
        case SymbolKind::kControl: return values.u.at(e.index);
        case SymbolKind::kTime: return values.t;
      }
      break;
    case Expression::Kind::kNegate: return -arg(0);
    case Expression::Kind::kAdd: return arg(0) + arg(1);
    case Expression::Kind::kSubtract: return arg(0) - arg(1);
    case Expression::Kind::kMultiply: return arg(0) * arg(1);
    case Expression::Kind::kDivide: return arg(0) / arg(1);
    case Expression::Kind::kPower: return std::pow(arg(0), arg(1));
    case Expression::Kind::kCall:
      switch (e.function) {
        case Function::kSin: return std::sin(arg(0));
        case Function::kCos: return std::cos(arg(0));
        case Function::kTan: return std::tan(arg(0));
        case Function::kAsin: return std::asin(arg(0));
        case Function::kAcos: return std::acos(arg(0));
        case Function::kAtan: return std::atan(arg(0));
        case Function::kAtan2: return std::atan2(arg(0), arg(1));
        case Function::kSinh: return std::sinh(arg(0));
        case Function::kCosh: return std::cosh(arg(0));
        case Function::kTanh: return std::tanh(arg(0));
        case Function::kExp: return std::exp(arg(0));
        case Function::kLog: return std::log(arg(0));
        case Function::kSqrt: return std::sqrt(arg(0));
        case Function::kAbs: return std::abs(arg(0));
        case Function::kPow: return std::pow(arg(0), arg(1));
        case Function::kMin: return std::min(arg(0), arg(1));
        case Function::kMax: return std::max(arg(0), arg(1));
      }
      break;
  }
  ADD_FAILURE() << "unexpected node";
  return NAN;
}

/// A one-coordinate model whose only force is `force`: forces may use every kind of symbol.
ModelDescription with_force(const std::string& force) {
  return parse_model_text("name = \"m\"\ncoordinates = [\"x\"]\nparameters = { a = 3.0, b = -0.5 }\n"
                          "controls = [\"u\"]\nlagrangian = \"0.5*x_dot^2\"\nforces = [\"" +
                              force + "\"]\n",
                          "force.toml");
}

double value_of(const std::string& expression) {
  const Values values{{0.25}, {-1.5}, {3.0, -0.5}, {7.0}, 2.0};
  return evaluate(with_force(expression).forces.at(0), values);
}

/// The message of the InvalidInput that parsing `text` throws ("" if none).
std::string error_of(const std::string& text) {
  try {
    parse_model_text(text, "x.toml");
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

// ------------------------------------------------------------------------------------------------
// Good files

TEST(ModelFile, ReadsTheExampleOfTheDesign) {
  const ModelDescription m = read_model_file((model_files_dir() / "good" / "cart-pole.toml").string());
  EXPECT_EQ(m.name, "cart-pole");
  EXPECT_EQ(m.description, "cart on a rail with a pendulum");
  EXPECT_EQ(m.coordinates, (std::vector<std::string>{"x", "th"}));
  EXPECT_EQ(m.periodic, (std::vector<bool>{false, true}));
  ASSERT_EQ(m.parameters.size(), 4u);
  // In the order of the file, not toml++'s sorted order.
  const std::vector<std::string> names = {"M", "m", "l", "g"};
  const std::vector<double> values = {1.0, 0.3, 0.5, 9.81};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m.parameters[i].name, names[i]);
    EXPECT_EQ(m.parameters[i].value, values[i]);
    EXPECT_EQ(m.parameters[i].position.line, 6);
  }
  EXPECT_EQ(m.parameters[0].position.column, 16);
  EXPECT_TRUE(m.constraints.empty());
  EXPECT_TRUE(m.unilateral.empty());
  EXPECT_TRUE(m.symmetries.empty());
  ASSERT_EQ(m.forces.size(), 2u);
  EXPECT_EQ(m.controls, (std::vector<std::string>{"u"}));
  EXPECT_EQ(m.method, "vi-midpoint");
  EXPECT_EQ(m.method_position.line, 13);
  EXPECT_EQ(m.method_position.column, 10);
  ASSERT_TRUE(m.h.has_value());
  EXPECT_EQ(*m.h, 0.01);
  EXPECT_EQ(m.initial_q, (std::vector<double>{0.0, 3.0}));
  EXPECT_EQ(m.initial_v, (std::vector<double>{0.1, 0.0}));

  // The Lagrangian evaluated against the formula of the file.
  const double M = 1.0, mm = 0.3, l = 0.5, g = 9.81, th = 0.7, xd = -0.4, thd = 1.3;
  const Values at{{0.2, th}, {xd, thd}, {M, mm, l, g}, {0.0}, 0.0};
  const double expected = 0.5 * (M + mm) * xd * xd + mm * l * xd * thd * std::cos(th) +
                          0.5 * mm * l * l * thd * thd + mm * g * l * std::cos(th);
  EXPECT_NEAR(evaluate(m.lagrangian, at), expected, 1e-14);
  const Values with_control{{0.2, th}, {xd, thd}, {M, mm, l, g}, {2.5}, 0.0};
  EXPECT_NEAR(evaluate(m.forces[0], with_control), 2.5 - 0.1 * xd, 1e-15);
  EXPECT_EQ(evaluate(m.forces[1], with_control), 0.0);
}

TEST(ModelFile, MinimalFileHasDefaults) {
  const ModelDescription m =
      parse_model_text("name = \"osc\"\ncoordinates = [\"q\"]\nlagrangian = \"q_dot^2/2 - q^2/2\"\n", "osc.toml");
  EXPECT_EQ(m.file, "osc.toml");
  EXPECT_EQ(m.description, "");
  EXPECT_EQ(m.periodic, std::vector<bool>{false});
  EXPECT_TRUE(m.parameters.empty());
  EXPECT_TRUE(m.forces.empty());
  EXPECT_TRUE(m.controls.empty());
  EXPECT_EQ(m.method, "");
  EXPECT_FALSE(m.h.has_value());
  EXPECT_EQ(m.initial_q, std::vector<double>{0.0});
  EXPECT_EQ(m.initial_v, std::vector<double>{0.0});
}

TEST(ModelFile, EveryGoodFileParses) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(model_files_dir() / "good")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(read_model_file(entry.path().string()));
    ++count;
  }
  EXPECT_GE(count, 3);
}

TEST(ModelFile, ConstraintsSymmetriesAndUnilateral) {
  const ModelDescription m = read_model_file((model_files_dir() / "good" / "spherical-pendulum.toml").string());
  ASSERT_EQ(m.coordinates.size(), 3u);
  ASSERT_EQ(m.constraints.size(), 1u);
  ASSERT_EQ(m.unilateral.size(), 1u);
  ASSERT_EQ(m.symmetries.size(), 1u);
  ASSERT_EQ(m.symmetries[0].size(), 3u);
  const Values at{{0.3, -0.4, 0.5}, {0, 0, 0}, {1.0, 9.81, 0.5}, {}, 0.0};
  EXPECT_NEAR(evaluate(m.constraints[0], at), 0.09 + 0.16 + 0.25 - 0.25, 1e-15);
  EXPECT_NEAR(evaluate(m.unilateral[0], at), 0.5 + 0.5, 1e-15);
  // Rotation about z: xi = (-y, x, 0).
  EXPECT_EQ(evaluate(m.symmetries[0][0], at), 0.4);
  EXPECT_EQ(evaluate(m.symmetries[0][1], at), 0.3);
  EXPECT_EQ(evaluate(m.symmetries[0][2], at), 0.0);
}

// ------------------------------------------------------------------------------------------------
// Expressions: precedence, associativity, numbers, functions

TEST(ExpressionParser, PrecedenceAndAssociativity) {
  const struct {
    const char* text;
    double value;
  } cases[] = {
      {"-2^2", -4.0},         {"2^3^2", 512.0},      {"1-2-3", -4.0},      {"8/4/2", 1.0},
      {"2^-1", 0.5},          {"-2^-2", -0.25},      {"2^-1^2", 0.5},      {"2*3+4*5", 26.0},
      {"(1+2)*3", 9.0},       {"1+2*3", 7.0},        {"+3", 3.0},          {"--3", 3.0},
      {"-+-3", 3.0},          {"2*-3", -6.0},        {"1/2*3", 1.5},       {"2^2*3", 12.0},
      {"-2*3^2", -18.0},      {"1 - -1", 2.0},       {"(2)^(3)", 8.0},     {"(-2)^2", 4.0},
      {"2^(1+1)^2", 16.0},    {"12/3^2*3", 4.0},     {"10-4+3", 9.0},      {"1 -\\t2\\n-3", -4.0},
      {"-(1-3)", 2.0},        {"((((1))))", 1.0},    {"2^+1", 2.0},        {"3 - 2^2 * -1", 7.0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_DOUBLE_EQ(value_of(c.text), c.value);
  }
}

TEST(ExpressionParser, Numbers) {
  EXPECT_EQ(value_of("2"), 2.0);
  EXPECT_EQ(value_of("0.5"), 0.5);
  EXPECT_EQ(value_of(".5"), 0.5);
  EXPECT_EQ(value_of("5."), 5.0);
  EXPECT_EQ(value_of("1e-3"), 1e-3);
  EXPECT_EQ(value_of("2.5E+4"), 2.5e4);
  EXPECT_EQ(value_of("007"), 7.0);
  EXPECT_EQ(value_of("2e-310"), 2e-310);    // subnormal, kept
  EXPECT_EQ(value_of("1e-400"), 0.0);       // underflow: the nearest double
  EXPECT_EQ(value_of("1.7976931348623157e308"), 1.7976931348623157e308);
  EXPECT_EQ(value_of("pi"), std::numbers::pi);
  EXPECT_DOUBLE_EQ(value_of("2*pi"), 2 * std::numbers::pi);
  EXPECT_NE(error_of("name = \"m\"\ncoordinates = [\"x\"]\nlagrangian = \"x_dot^2 + 2e308\"\n").find("not finite"),
            std::string::npos);
}

TEST(ExpressionParser, Functions) {
  EXPECT_DOUBLE_EQ(value_of("sin(1)"), std::sin(1.0));
  EXPECT_DOUBLE_EQ(value_of("cos(1)"), std::cos(1.0));
  EXPECT_DOUBLE_EQ(value_of("tan(1)"), std::tan(1.0));
  EXPECT_DOUBLE_EQ(value_of("asin(0.5)"), std::asin(0.5));
  EXPECT_DOUBLE_EQ(value_of("acos(0.5)"), std::acos(0.5));
  EXPECT_DOUBLE_EQ(value_of("atan(2)"), std::atan(2.0));
  EXPECT_DOUBLE_EQ(value_of("atan2(1, -2)"), std::atan2(1.0, -2.0));
  EXPECT_DOUBLE_EQ(value_of("sinh(1)"), std::sinh(1.0));
  EXPECT_DOUBLE_EQ(value_of("cosh(1)"), std::cosh(1.0));
  EXPECT_DOUBLE_EQ(value_of("tanh(1)"), std::tanh(1.0));
  EXPECT_DOUBLE_EQ(value_of("exp(1)"), std::exp(1.0));
  EXPECT_DOUBLE_EQ(value_of("log(2)"), std::log(2.0));
  EXPECT_DOUBLE_EQ(value_of("sqrt(16)"), 4.0);
  EXPECT_DOUBLE_EQ(value_of("abs(-3)"), 3.0);
  EXPECT_DOUBLE_EQ(value_of("pow(2, 10)"), 1024.0);
  EXPECT_DOUBLE_EQ(value_of("min(3, -1)"), -1.0);
  EXPECT_DOUBLE_EQ(value_of("max(3, -1)"), 3.0);
  EXPECT_DOUBLE_EQ(value_of("max(min(1, 2), pow(2, 1+1))*-sin (0.5)^2"), -4.0 * std::pow(std::sin(0.5), 2));
  EXPECT_DOUBLE_EQ(value_of("-cos(0)^2"), -1.0);
}

TEST(ExpressionParser, ResolvesSymbols) {
  // x = 0.25, x_dot = -1.5, a = 3, b = -0.5, u = 7, t = 2 (value_of).
  EXPECT_DOUBLE_EQ(value_of("x + x_dot*a - b/u + t"), 0.25 - 4.5 + 0.5 / 7 + 2);
  const ModelDescription m = with_force("x + x_dot + a + b + u + t");
  // Left-associative: ((((x + x_dot) + a) + b) + u) + t; walk down the left spine.
  std::vector<const Expression*> leaves;
  const Expression* e = &m.forces[0];
  while (e->kind == Expression::Kind::kAdd) {
    leaves.insert(leaves.begin(), &e->args[1]);
    e = &e->args[0];
  }
  leaves.insert(leaves.begin(), e);
  ASSERT_EQ(leaves.size(), 6u);
  const std::pair<SymbolKind, int> expected[] = {{SymbolKind::kCoordinate, 0}, {SymbolKind::kVelocity, 0},
                                                 {SymbolKind::kParameter, 0},  {SymbolKind::kParameter, 1},
                                                 {SymbolKind::kControl, 0},    {SymbolKind::kTime, 0}};
  for (std::size_t i = 0; i < 6; ++i) {
    ASSERT_EQ(leaves[i]->kind, Expression::Kind::kSymbol);
    EXPECT_EQ(leaves[i]->symbol, expected[i].first) << i;
    EXPECT_EQ(leaves[i]->index, expected[i].second) << i;
  }
  EXPECT_TRUE(mechint::model_file::uses_symbol(m.forces[0], SymbolKind::kTime));
  EXPECT_FALSE(mechint::model_file::uses_symbol(m.lagrangian, SymbolKind::kParameter));
}

TEST(ExpressionParser, IndicesOfSeveralCoordinates) {
  const ModelDescription m = parse_model_text(
      "name = \"two\"\ncoordinates = [\"a\", \"b\", \"c\"]\nparameters = { k = 2, j = 5 }\n"
      "lagrangian = \"c_dot*b + a_dot^2 + j*k\"\n",
      "two.toml");
  const Values at{{1.0, 10.0, 100.0}, {2.0, 20.0, 200.0}, {2.0, 5.0}, {}, 0.0};
  EXPECT_DOUBLE_EQ(evaluate(m.lagrangian, at), 200.0 * 10.0 + 4.0 + 10.0);
  EXPECT_EQ(m.parameters[0].name, "k");  // file order
  EXPECT_EQ(m.parameters[0].value, 2.0);  // TOML integer, as a double
}

// ------------------------------------------------------------------------------------------------
// Positions

TEST(ExpressionParser, PositionsOfNodes) {
  //                                          col: 14 is the quote; "a" is at 15
  const ModelDescription m = parse_model_text(
      "name = \"p\"\ncoordinates = [\"q\"]\nparameters = { a = 1, b = 2 }\n"
      "lagrangian = \"a + b*q_dot^2 - sin(q)\"\n",
      "p.toml");
  const Expression& sub = m.lagrangian;  // (a + b*q_dot^2) - sin(q)
  ASSERT_EQ(sub.kind, Expression::Kind::kSubtract);
  EXPECT_EQ(sub.position.line, 4);
  EXPECT_EQ(sub.position.column, 15);
  const Expression& add = sub.args[0];
  ASSERT_EQ(add.kind, Expression::Kind::kAdd);
  EXPECT_EQ(add.args[0].position.column, 15);  // a
  const Expression& mul = add.args[1];
  ASSERT_EQ(mul.kind, Expression::Kind::kMultiply);
  EXPECT_EQ(mul.position.column, 19);          // b
  ASSERT_EQ(mul.args[1].kind, Expression::Kind::kPower);
  EXPECT_EQ(mul.args[1].position.column, 21);  // q_dot
  EXPECT_EQ(mul.args[1].args[1].position.column, 27);  // 2
  const Expression& call = sub.args[1];
  ASSERT_EQ(call.kind, Expression::Kind::kCall);
  EXPECT_EQ(call.function, Function::kSin);
  EXPECT_EQ(call.position.column, 31);
  EXPECT_EQ(call.args[0].position.column, 35);  // q
  EXPECT_EQ(call.args[0].position.line, 4);
}

TEST(ExpressionParser, PositionsInLiteralStringsAndAfterTabs) {
  // A literal string, a second element of an array, a tab (one column, as toml++ counts).
  const ModelDescription m = parse_model_text(
      "name = \"p\"\ncoordinates = [\"q\", \"r\"]\nlagrangian = 'q_dot^2 + q'\n"
      "forces = [\"q\", 'q_dot']\n",
      "p.toml");
  EXPECT_EQ(m.lagrangian.args[1].position.column, 25);
  EXPECT_EQ(m.forces[1].position.line, 4);
  EXPECT_EQ(m.forces[1].position.column, 17);
  const std::string tab = error_of("name = \"p\"\ncoordinates = [\"q\"]\nlagrangian =\t\"q_dot^2 + r\"\n");
  EXPECT_NE(tab.find("x.toml:3:25: unknown name 'r'"), std::string::npos) << tab;
}

TEST(ExpressionParser, EscapedAndMultiLineStringsUseTheValuePosition) {
  const ModelDescription escaped =
      parse_model_text("name = \"p\"\ncoordinates = [\"q\"]\nlagrangian = \"q_dot^2\\t+ q\"\n", "p.toml");
  EXPECT_EQ(escaped.lagrangian.args[1].position.line, 3);
  EXPECT_EQ(escaped.lagrangian.args[1].position.column, 14);
  const ModelDescription multi = parse_model_text(
      "name = \"p\"\ncoordinates = [\"q\"]\nlagrangian = \"\"\"\n  0.5*q_dot^2\n  - q^2\"\"\"\n", "p.toml");
  EXPECT_EQ(multi.lagrangian.args[1].position.line, 3);
  EXPECT_EQ(multi.lagrangian.args[1].position.column, 14);
  const Values at{{3.0}, {2.0}, {}, {}, 0.0};
  EXPECT_DOUBLE_EQ(evaluate(multi.lagrangian, at), 2.0 - 9.0);
}

// ------------------------------------------------------------------------------------------------
// Checks that the bad files do not cover one by one

TEST(ModelFile, ManyTermsAndSixtyThreeLevelsAreAccepted) {
  std::string terms = "q_dot^2";
  while (terms.size() < 9900) terms += "+q";
  EXPECT_NO_THROW(parse_model_text("name = \"p\"\ncoordinates = [\"q\"]\nlagrangian = \"" + terms + "\"\n", "p.toml"));
  const std::string nested = std::string(63, '(') + "q_dot" + std::string(63, ')');
  EXPECT_NO_THROW(parse_model_text("name = \"p\"\ncoordinates = [\"q\"]\nlagrangian = \"" + nested + "\"\n", "p.toml"));
}

TEST(ModelFile, ConstraintsFewerThanCoordinatesAreAccepted) {
  const ModelDescription m = parse_model_text(
      "name = \"p\"\ncoordinates = [\"x\", \"y\", \"z\"]\nlagrangian = \"x_dot^2 + y_dot^2 + z_dot^2\"\n"
      "constraints = [\"x^2 + y^2 + z^2 - 1\", \"z\"]\n",
      "p.toml");
  EXPECT_EQ(m.constraints.size(), 2u);
}

TEST(ModelFile, ForcesMayUseTimeAndVelocitiesWithoutControls) {
  const ModelDescription m = parse_model_text(
      "name = \"p\"\ncoordinates = [\"q\"]\nlagrangian = \"q_dot^2\"\nforces = [\"cos(t) - q_dot\"]\n"
      "controls = [\"unused\"]\n",
      "p.toml");
  EXPECT_EQ(m.forces.size(), 1u);
  EXPECT_EQ(m.controls.size(), 1u);
}

TEST(ModelFile, UnknownNameSuggestsWhenTheListIsLong) {
  std::string parameters;
  for (int i = 0; i < 20; ++i) parameters += (i ? ", " : "") + std::string("p") + std::to_string(i) + " = 1";
  const std::string message = error_of("name = \"p\"\ncoordinates = [\"q\"]\nparameters = { " + parameters +
                                       ", gravity = 9.81 }\nlagrangian = \"q_dot^2 + gravty*q\"\n");
  EXPECT_NE(message.find("unknown name 'gravty' in the Lagrangian (did you mean 'gravity'?)"), std::string::npos)
      << message;
  EXPECT_EQ(message.find("known:"), std::string::npos) << message;
}

TEST(ModelFile, ReadRefusesWhatIsNotASmallRegularFile) {
  const fs::path dir = fs::path(::testing::TempDir()) / "mechint_model_file_test";
  fs::create_directories(dir);
  const auto refused = [](const std::string& path, const std::string& what) {
    try {
      read_model_file(path);
      ADD_FAILURE() << path << " accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused((dir / "missing.toml").string(), "cannot read");
  refused(dir.string(), "not a regular file");
  const fs::path fifo = dir / "fifo.toml";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  refused(fifo.string(), "not a regular file");  // and does not block
  const fs::path big = dir / "big.toml";
  {
    std::ofstream out(big, std::ios::binary);
    out << "name = \"p\"\n" << std::string(mechint::model_file::kMaxModelFileSize, '#') << "\n";
  }
  refused(big.string(), "larger than the limit");
  EXPECT_NE(error_of(std::string(mechint::model_file::kMaxModelFileSize + 1, ' ')).find("larger than the limit"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(ModelFile, MessagesQuoteWhatTheFileHolds) {
  // A control character through a TOML escape, and a huge key: escaped, and cut.
  const std::string message = error_of("name = \"p\"\ncoordinates = [\"q\\u0007\\u001b[2J\"]\nlagrangian = \"q_dot^2\"\n");
  EXPECT_NE(message.find("x.toml:2:16: coordinate name 'q\\x07\\x1b[2J' is not an identifier"), std::string::npos)
      << message;
  const std::string long_key = error_of("name = \"p\"\n" + std::string(5000, 'k') + " = 1\n");
  EXPECT_LT(long_key.size(), 400u) << long_key;
  EXPECT_NE(long_key.find("(5000 bytes)"), std::string::npos) << long_key;
}

// ------------------------------------------------------------------------------------------------
// Bad files: one per kind of error, each announcing `# expect: LINE:COLUMN: substring`

struct BadFile {
  fs::path path;
  int line = 0;
  int column = 0;
  std::string substring;
};

std::vector<BadFile> bad_files() {
  std::vector<BadFile> files;
  const std::regex expect(R"(^# expect: (\d+):(\d+): (.+)$)");
  for (const auto& entry : fs::directory_iterator(model_files_dir() / "bad")) {
    if (entry.path().extension() != ".toml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string first;
    std::getline(in, first);
    std::smatch match;
    BadFile file;
    file.path = entry.path();
    if (std::regex_match(first, match, expect)) {
      file.line = std::stoi(match[1]);
      file.column = std::stoi(match[2]);
      file.substring = match[3];
    }
    files.push_back(file);
  }
  std::sort(files.begin(), files.end(), [](const BadFile& a, const BadFile& b) { return a.path < b.path; });
  return files;
}

class BadModelFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadModelFile, IsRefusedWithItsPositionAndMessage) {
  const BadFile& file = GetParam();
  ASSERT_GT(file.line, 0) << file.path << ": first line is not '# expect: LINE:COLUMN: substring'";
  const std::string path = file.path.string();
  std::string message;
  try {
    read_model_file(path);
    FAIL() << path << " was accepted";
  } catch (const InvalidInput& e) {
    message = e.what();
  }
  const std::string prefix = path + ":" + std::to_string(file.line) + ":" + std::to_string(file.column) + ": ";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << "expected prefix " << prefix << "\n got " << message;
  EXPECT_NE(message.find(file.substring), std::string::npos) << "expected " << file.substring << "\n got " << message;
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << int(byte) << " in " << message;
  }
  EXPECT_LE(message.size(), 1500u);
}

INSTANTIATE_TEST_SUITE_P(TestsModelFilesBad, BadModelFile, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<BadFile>& info) {
                           std::string name = info.param.path.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(ModelFile, AtLeastThirtyFiveBadFiles) { EXPECT_GE(bad_files().size(), 35u); }

}  // namespace
