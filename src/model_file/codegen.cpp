#include "model_file/codegen.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mechint::model_file {
namespace {

using Kind = Expression::Kind;

// ---- structure ----------------------------------------------------------------------------------

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

// ---- emission -----------------------------------------------------------------------------------

/// A double as a C++ literal that reads back as the same double.
std::string literal(double x) {
  if (!std::isfinite(x)) throw std::logic_error("model_file codegen: non-finite number in a checked model");
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return x < 0 ? "(" + text + ")" : text;
}

/// Emits an expression as straight-line code: one `const` temporary per distinct operation
/// (common subexpressions computed once), of type `T` when it depends on q or q̇ ("active") and
/// `double` otherwise. Mixed double/T operations go through math.hpp's helpers.
class Emitter {
 public:
  struct Operand {
    std::string text;
    bool active = false;
  };

  Operand emit(const Expression& e) {
    switch (e.kind) {
      case Kind::kNumber:
        return {literal(e.number), false};
      case Kind::kSymbol:
        return symbol(e);
      case Kind::kNegate: {
        const Operand a = emit(e.args[0]);
        return temp(a.active, "-" + a.text);
      }
      case Kind::kAdd:
        return arithmetic(e, "+", "add");
      case Kind::kSubtract:
        return arithmetic(e, "-", "sub");
      case Kind::kMultiply:
        return arithmetic(e, "*", "mul");
      case Kind::kDivide:
        return arithmetic(e, "/", "div");
      case Kind::kPower:
        return power(emit(e.args[0]), e.args[1]);
      case Kind::kCall:
        return call(e);
    }
    throw std::logic_error("model_file codegen: unknown expression kind");
  }

  /// `a` as a value of type T.
  static std::string as_active(const Operand& a) { return a.active ? a.text : "math::lift<T>(" + a.text + ")"; }

  const std::string& code() const { return code_; }

 private:
  Operand symbol(const Expression& e) {
    const std::string i = std::to_string(e.index);
    switch (e.symbol) {
      case SymbolKind::kCoordinate:
        return {"q[" + i + "]", true};
      case SymbolKind::kVelocity:
        return {"v[" + i + "]", true};
      case SymbolKind::kParameter:
        return {"p_[" + i + "]", false};
      case SymbolKind::kControl:
        // Controls are of the scalar type: optimal control differentiates with respect to them.
        return {"u[" + i + "]", true};
      case SymbolKind::kTime:
        return {"t", false};
    }
    throw std::logic_error("model_file codegen: unknown symbol kind");
  }

  Operand arithmetic(const Expression& e, const char* op, const char* helper) {
    const Operand a = emit(e.args[0]), b = emit(e.args[1]);
    if (a.active == b.active) return temp(a.active, a.text + " " + op + " " + b.text);
    return temp(true, std::string("math::") + helper + "(" + a.text + ", " + b.text + ")");
  }

  /// A literal integer exponent becomes multiplications fixed at compile time (x^2 = x*x).
  Operand power(const Operand& base, const Expression& exponent) {
    const double n = exponent.number;
    if (exponent.kind == Kind::kNumber && n == std::trunc(n) && std::abs(n) <= 64)
      return temp(base.active, "math::static_power<" + std::to_string(static_cast<long>(n)) + ">(" + base.text + ")");
    return power(base, emit(exponent));
  }

  Operand power(const Operand& base, const Operand& exponent) {
    if (!base.active && !exponent.active) return temp(false, "std::pow(" + base.text + ", " + exponent.text + ")");
    if (!exponent.active) return temp(true, "math::constant_power(" + base.text + ", " + exponent.text + ")");
    return temp(true, "math::variable_power(" + as_active(base) + ", " + as_active(exponent) + ")");
  }

  Operand call(const Expression& e) {
    const std::string name(kFunctionNames[static_cast<int>(e.function)]);
    std::vector<Operand> args;
    for (const auto& a : e.args) args.push_back(emit(a));
    if (e.function == Function::kPow) return power(args[0], e.args[1]);
    if (args.size() == 1) return temp(args[0].active, "math::" + name + "(" + args[0].text + ")");
    const bool active = args[0].active || args[1].active;
    if (!active) return temp(false, "math::" + name + "(" + args[0].text + ", " + args[1].text + ")");
    return temp(true, "math::" + name + "(" + as_active(args[0]) + ", " + as_active(args[1]) + ")");
  }

  Operand temp(bool active, const std::string& expression) {
    const std::string key = (active ? "T " : "d ") + expression;
    if (const auto found = names_.find(key); found != names_.end()) return {found->second, active};
    const std::string name = (active ? "a" : "c") + std::to_string(names_.size());
    names_.emplace(key, name);
    code_ += "    const " + std::string(active ? "T" : "double") + " " + name + " = " + expression + ";\n";
    return {name, active};
  }

  std::map<std::string, std::string> names_;
  std::string code_;
};

std::string vec(const std::string& scalar, std::size_t n) {
  return "mechint::Vec<" + scalar + ", " + std::to_string(n) + ">";
}

/// A templated member function returning one scalar; `arguments` are marked used (a free
/// particle's L does not read q).
std::string scalar_function(const std::string& signature, const std::vector<std::string>& arguments,
                            const Expression& e) {
  Emitter emitter;
  const auto result = emitter.emit(e);
  std::string used;
  for (const auto& a : arguments) used += "    (void)" + a + ";\n";
  return "  template <class T>\n  T " + signature + " const {\n" + used + emitter.code() + "    return " +
         Emitter::as_active(result) + ";\n  }\n";
}

/// A templated member function returning a vector, one expression per component.
std::string vector_function(const std::string& name, const std::vector<Expression>& components, std::size_t n) {
  Emitter emitter;
  std::string assignments;
  for (std::size_t i = 0; i < components.size(); ++i) {
    const auto c = emitter.emit(components[i]);
    assignments += "    out[" + std::to_string(i) + "] = " + Emitter::as_active(c) + ";\n";
  }
  const std::string type = vec("T", components.size());
  return "  template <class T>\n  " + type + " " + name + "(const " + vec("T", n) + "& q) const {\n    (void)q;\n" +
         emitter.code() + "    " + type + " out;\n" + assignments + "    return out;\n  }\n";
}

/// The generalized force f(q, q̇, u, t) of model/forces.hpp, one expression per coordinate.
std::string force_function(const std::vector<Expression>& components, std::size_t n, std::size_t controls) {
  Emitter emitter;
  std::string assignments;
  for (std::size_t i = 0; i < components.size(); ++i) {
    const auto c = emitter.emit(components[i]);
    assignments += "    out[" + std::to_string(i) + "] = " + Emitter::as_active(c) + ";\n";
  }
  const std::string type = vec("T", n);
  return "  template <class T>\n  " + type + " generalized_force(const " + type + "& q, const " + type +
         "& v, const " + vec("T", controls) + "& u, double t) const {\n    (void)q;\n    (void)v;\n    (void)u;\n"
         "    (void)t;\n" + emitter.code() + "    " + type + " out;\n" + assignments + "    return out;\n  }\n";
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

std::string generate_model_source(const ModelDescription& model) {
  const std::size_t n = model.coordinates.size();
  const std::string dim = std::to_string(n);
  const ModelStructure structure = analyse_structure(model);

  std::string s;
  s += "// Generated by mechint from a model file (docs/model-files.md); regenerated on every change.\n";
  s += "#include \"model_file/generated_model_support.hpp\"\n\n";
  s += "namespace {\n\nnamespace math = mechint::model_file::math;\n\n";
  s += "struct GeneratedModel {\n";
  s += "  static constexpr int kDim = " + dim + ";\n";
  s += "  static constexpr int kNumConstraints = " + std::to_string(model.constraints.size()) + ";\n";
  s += "  static constexpr int kNumSymmetries = " + std::to_string(model.symmetries.size()) + ";\n";
  if (!model.unilateral.empty())
    s += "  static constexpr int kNumUnilateral = " + std::to_string(model.unilateral.size()) + ";\n";
  if (structure.forced) s += "  static constexpr int kNumControls = " + std::to_string(model.controls.size()) + ";\n";
  s += "  std::array<double, " + std::to_string(model.parameters.size()) + "> p_{};  // parameters, in file order\n\n";

  s += scalar_function("lagrangian(const " + vec("T", n) + "& q, const " + vec("T", n) + "& v)", {"q", "v"},
                       model.lagrangian);

  if (structure.forced) s += force_function(model.forces, n, model.controls.size());
  if (!model.constraints.empty()) s += vector_function("constraints", model.constraints, n);
  // adapt=sundman's s(q) (DESIGN §10), differentiated by the AD backend (kernel/model_adapter.txx).
  if (model.time_scale) s += scalar_function("time_scale(const " + vec("T", n) + "& q)", {"q"}, *model.time_scale);
  if (!model.unilateral.empty()) s += vector_function("unilateral", model.unilateral, n);
  if (!model.domain.empty()) {
    // Where the model is defined (d_i(q) > 0), checked at the end and the midpoint of every step
    // (the points where the discrete Lagrangians evaluate L) by the run loop's hooks.
    s += "  static constexpr int kNumDomain = " + std::to_string(model.domain.size()) + ";\n";
    s += "  std::shared_ptr<const mechint::model_file::ModelDescription> description_;  // for messages\n";
    s += vector_function("domain", model.domain, n);
    s += "  void validate_configuration(const mechint::VecD<" + dim + ">& q, double t) const {\n";
    s += "    mechint::model_file::check_domain(*this, q, t, \"at\");\n  }\n";
    s += "  void validate_step(const mechint::VecD<" + dim + ">& q_before, const mechint::VecD<" + dim +
         ">& q, double t) const {\n";
    s += "    mechint::model_file::check_domain(*this, mechint::VecD<" + dim +
         ">(0.5 * (q_before + q)), t, \"at the midpoint of the step ending at\");\n  }\n";
  }
  if (!model.symmetries.empty()) {
    for (std::size_t i = 0; i < model.symmetries.size(); ++i)
      s += vector_function("generator_" + std::to_string(i), model.symmetries[i], n);
    s += "  mechint::VecD<" + dim + "> symmetry_generator(int i, const mechint::VecD<" + dim + ">& q) const {\n";
    s += "    switch (i) {\n";
    for (std::size_t i = 0; i < model.symmetries.size(); ++i)
      s += "      case " + std::to_string(i) + ": return generator_" + std::to_string(i) + "<double>(q);\n";
    s += "    }\n    return mechint::VecD<" + dim + ">::Zero();\n  }\n";
  }
  if (structure.energy_momentum_applies()) {
    const auto split = split_constant_mass(model.lagrangian);
    const std::string kinetic = scalar_function("kinetic(const " + vec("T", n) + "& v)", {"v"}, split->kinetic);
    const std::string potential =
        scalar_function("potential(const " + vec("T", n) + "& q)", {"q"}, split->potential);
    s += "  // L = kinetic(v) - potential(q), kinetic a quadratic form with constant coefficients: the\n";
    s += "  // energy-momentum method applies (integrate/energy_momentum.hpp).\n";
    s += kinetic + potential;
    s += "  mechint::Mat<" + dim + ", " + dim + "> mass_matrix() const {\n";
    s += "    return mechint::model_file::constant_mass_matrix(*this);\n  }\n";
  }
  s += "};\n\n}  // namespace\n\n";
  s += "extern \"C\" __attribute__((visibility(\"default\"))) void mechint_model_file_entry_v1(\n";
  s += "    const mechint::model_file::ModelDescription* description, mechint::app::SystemEntry* entry) {\n";
  s += "  *entry = mechint::model_file::make_model_file_optimize_entry<GeneratedModel>(*description);\n}\n";
  return s;
}

}  // namespace mechint::model_file
