#include "model_file/system_file.hpp"
#include "model_file/model_file_system.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <ceres/jet.h>

#include "app/drawing.hpp"
#include "app/kernel_system.hpp"
#include "app/system_entry.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/model_structure.hpp"
#include "model_file/evaluate.hpp"
#include "model_file/expression_parser.hpp"
#include "model_file/input_file.hpp"
#include "model_file/model_checks.hpp"
#include "model_file/model_compiler.hpp"  // digest
#include "model_file/model_file.hpp"
#include "model_file/model_kernels_plugin.hpp"
#include "multibody/urdf_model.hpp"
#include "multibody/urdf_robot.hpp"

namespace mechint::model_file {
namespace {

std::string at(const ModelDescription& d, const SourcePosition& p) {
  return d.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
}

/// A model file's description and its derivative kernels (every command: runs, stepping sessions,
/// sweeps and optimize, model_kernels_plugin.hpp).
class LoadedModel {
 public:
  LoadedModel(ModelDescription description, std::string text)
      : description_(std::move(description)), text_(std::move(text)), kernels_(description_, text_) {}

  const ModelDescription& description() const { return description_; }

  /// The model's derivative kernels, for the methods compiled once.
  ModelKernelsPlugin& kernels() { return kernels_; }

 private:
  ModelDescription description_;
  std::string text_;
  ModelKernelsPlugin kernels_;
};

/// The names joined, or "none".
std::string join(const std::vector<std::string>& names) {
  const std::string s = join_names(names);
  return s.empty() ? "none" : s;
}

/// What the forces act on and depend on, and the controls with their output columns.
std::string describe_forces(const ModelDescription& d) {
  std::vector<std::string> acted_on;
  bool uses[5] = {};
  for (std::size_t i = 0; i < d.forces.size(); ++i) {
    const Expression& f = d.forces[i];
    if (f.kind != Expression::Kind::kNumber || f.number != 0.0) acted_on.push_back(d.coordinates[i]);
    for (const SymbolKind kind : {SymbolKind::kCoordinate, SymbolKind::kVelocity, SymbolKind::kParameter,
                                  SymbolKind::kControl, SymbolKind::kTime})
      uses[static_cast<int>(kind)] = uses[static_cast<int>(kind)] || uses_symbol(f, kind);
  }
  std::vector<std::string> depends;
  if (uses[static_cast<int>(SymbolKind::kCoordinate)]) depends.push_back("coordinates");
  if (uses[static_cast<int>(SymbolKind::kVelocity)]) depends.push_back("velocities");
  if (uses[static_cast<int>(SymbolKind::kControl)]) depends.push_back("controls");
  if (uses[static_cast<int>(SymbolKind::kTime)]) depends.push_back("time");
  std::string text = "  forces (generalized, one per coordinate): on " + join(acted_on) + "; depend on " +
                     join(depends) + "\n  controls: ";
  if (d.controls.empty()) return text + "none\n";
  for (std::size_t i = 0; i < d.controls.size(); ++i)
    text += (i ? ", " : "") + d.controls[i] + " (column u" + std::to_string(i + 1) + ")";
  return text + "; set with --set NAME=VALUE (default 0) or --controls FILE.csv\n";
}

/// What can be refused from the description alone, before anything is compiled: a `method` that is
/// no method of mechint at all (whether the model offers it is known once it is compiled).
void check_before_compiling(const ModelDescription& d) {
  if (d.method.empty()) return;
  if (methods::is_method(d.method)) return;
  throw InvalidInput(at(d, d.method_position) + "method " + quote_for_message(d.method) + " is not a method of mechint (" +
                     join_names(methods::method_names()) + ")");
}

/// The file's `method` must be one the model offers (for a model on kernels, known from the file).
void check_kernel_default_method(const ModelDescription& d) {
  if (d.method.empty()) return;
  const auto offered = kernel_model_methods(d);
  if (std::find(offered.begin(), offered.end(), d.method) != offered.end()) return;
  std::string list;
  for (const auto& m : offered) list += (list.empty() ? "" : ", ") + m;
  throw InvalidInput(at(d, d.method_position) + "method " + quote_for_message(d.method) +
                     " does not apply to this model (offered: " + list + ")");
}

/// A start value of `check` that is not finite: the model is not defined at its start.
void require_finite(const ModelDescription& d, double value, const std::string& what) {
  if (std::isfinite(value)) return;
  throw InvalidInput(d.file + ": " + what + " is not finite at the start (" + format_number(value) +
                     "): the model is not defined there; check [initial] and the parameters");
}

}  // namespace

std::vector<app::ParameterSpec> model_file_parameters(const ModelDescription& d) {
  std::vector<app::ParameterSpec> specs;
  for (const auto& p : d.parameters) specs.push_back(app::ParameterSpec::real(p.name, p.value, "parameter"));
  for (std::size_t i = 0; i < d.coordinates.size(); ++i)
    specs.push_back(app::ParameterSpec::real(d.coordinates[i], d.initial_q[i], "initial value"));
  for (std::size_t i = 0; i < d.coordinates.size(); ++i)
    specs.push_back(app::ParameterSpec::real(d.coordinates[i] + "_dot", d.initial_v[i], "initial velocity"));
  return specs;
}

std::string model_file_default_method(const ModelDescription& d) {
  if (!d.method.empty()) return d.method;
  return d.unilateral.empty() ? "vi-midpoint" : "vi-trapezoid";
}

app::OutputLabels model_file_labels(const ModelDescription& d) {
  app::OutputLabels labels;
  labels.coordinates = d.coordinates;
  for (std::size_t i = 1; i <= d.symmetries.size(); ++i) labels.momenta.push_back("J" + std::to_string(i));
  bool any_periodic = false;
  for (const bool p : d.periodic) any_periodic = any_periodic || p;
  if (any_periodic) labels.periodic = d.periodic;
  return labels;
}

namespace {

/// The entry of a model file's text (read once: its text is what is parsed, digested for
/// checkpoints and keyed in the cache of compiled kernels, so that a file replaced meanwhile cannot
/// pair one's description with another's digest; the drawing, `[draw]`, comes from the same
/// description). `efforts`: a URDF's `<limit effort>` by control name.
app::SystemEntry entry_of_text(const std::string& path, std::string text, const std::map<std::string, double>& efforts) {
  auto description = parse_model_text(text, path);
  check_before_compiling(description);
  // The impact driver's flows are unconstrained: no method integrates walls on a constraint manifold.
  if (!description.unilateral.empty() && !description.constraints.empty())
    throw InvalidInput(description.file + ": unilateral constraints together with holonomic constraints are not "
                       "supported: the impact driver integrates unconstrained models only");
  check_symmetries(description);  // a momentum declared conserved must be: refused before compiling
  const std::string fingerprint = digest(text);
  auto model = std::make_shared<LoadedModel>(std::move(description), std::move(text));
  const ModelDescription& d = model->description();
  app::SystemEntry e;
  e.name = d.name;
  e.fingerprint = fingerprint;
  e.summary = d.description.empty() ? "model file " + path : d.description;
  e.default_method = model_file_default_method(d);
  e.default_h = d.h;
  e.controls = d.controls;  // settable by the file's names; the output columns are u1, u2, ...
  e.parameters = [model](const app::Overrides&) { return model_file_parameters(model->description()); };
  // Every command runs on the model's derivative kernels, compiled in a fraction of a second
  // (model_kernels_plugin.hpp); optimize asks for a plugin that also holds its third derivatives.
  check_kernel_default_method(d);
  e.methods = [model](const app::ParameterValues&) { return kernel_model_methods(model->description()); };
  e.method_options = [model](const app::ParameterValues&, const std::string& method) {
    return methods::method_options(kernel_model_structure(model->description()), method);
  };
  app::run_on_kernel_problems(e, [model](const app::ParameterValues& v) { return model->kernels().problem(v); }, model);
  e.drawing = [model](const app::ParameterValues& values) {
    const ModelDescription& d = model->description();
    if (!d.draw)
      throw InvalidInput(printable_line(d.file, 200) + ": the model file has no [draw] section to animate (DESIGN §11, "
                         "docs/animations.md)");
    std::vector<double> parameters;
    for (const auto& p : d.parameters) parameters.push_back(values.has(p.name) ? values.real(p.name) : p.value);
    return app::Drawing::from_model_file(*d.draw, d.coordinates, std::move(parameters));
  };
  // A URDF's `<limit effort>` bounds its joint's control in optimize, unless [bounds] names it.
  e.optimize = [model, efforts](const app::ParameterValues& v, const app::OptimalControlSpec& given,
                                const std::vector<std::string>& controls) {
    app::OptimalControlSpec spec = given;
    for (const auto& [control, effort] : efforts)
      if (!spec.bounds.count(control)) spec.bounds.emplace(control, app::LocatedBounds{-effort, effort, spec.model_where});
    // What optimize_kernel_problem refuses (app/kernel_optimize.hpp), refused before anything is
    // compiled; the others get the plugin with optimal control's kernels. (A model file with forces
    // has neither walls nor nonholonomic constraints: the file's checks refuse the pair.)
    const ModelDescription& d = model->description();
    if (d.controls.empty()) spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
    if (!d.constraints.empty())
      spec.fail(spec.model_where, "optimal control of a system with holonomic constraints is not supported");
    return app::optimize_kernel_problem(model->kernels().problem(v, /*with_optimal_control=*/true), spec, controls);
  };
  return e;
}

/// A URDF's entry: its root link fixed to the world, or floating with `--set root=floating`
/// (DESIGN §12) — two models of one reading of the file, each compiled when first run; every
/// function of the entry goes to the one the values choose.
app::SystemEntry urdf_system(const std::string& path) {
  auto [fixed_model, floating_model] = multibody::urdf_models(path);
  auto fixed = std::make_shared<const app::SystemEntry>(
      entry_of_text(path, std::move(fixed_model.text), fixed_model.control_efforts));
  auto floating = std::make_shared<const app::SystemEntry>(
      entry_of_text(path, std::move(floating_model.text), floating_model.control_efforts));
  const auto pick = [fixed, floating](const app::ParameterValues& v) -> const app::SystemEntry& {
    return v.has("root") && v.choice("root") == "floating" ? *floating : *fixed;
  };
  app::SystemEntry e = *fixed;
  e.fingerprint = fixed->fingerprint + "+" + floating->fingerprint;
  e.parameters = [fixed, floating](const app::Overrides& overrides) {
    const auto root = overrides.find("root");
    auto specs = (root != overrides.end() && root->second == "floating" ? floating : fixed)->parameters(overrides);
    specs.push_back(app::ParameterSpec::choice("root", {"fixed", "floating"},
                                               "the root link fixed to the world, or floating free (its coordinates "
                                               "ROOT_x.. ROOT_qz, docs/robots.md)"));
    return specs;
  };
  e.methods = [pick](const app::ParameterValues& v) { return pick(v).methods(v); };
  e.method_options = [pick](const app::ParameterValues& v, const std::string& method) {
    return pick(v).method_options(v, method);
  };
  e.run = [pick](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
                 const OutputSchedule& schedule, const app::ControlSchedule& controls, app::RowWriter& out) {
    pick(v).run(v, method, options, schedule, controls, out);
  };
  e.stepping = [pick](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
                      double h, const app::ControlSchedule& controls) {
    return pick(v).stepping(v, method, options, h, controls);
  };
  e.optimize = [pick](const app::ParameterValues& v, const app::OptimalControlSpec& spec,
                      const std::vector<std::string>& controls) { return pick(v).optimize(v, spec, controls); };
  e.drawing = [pick](const app::ParameterValues& v) { return pick(v).drawing(v); };
  return e;
}

}  // namespace

app::SystemEntry model_file_system(const std::string& path) {
  if (multibody::is_urdf_file_name(path)) return urdf_system(path);
  return entry_of_text(path, read_input_file(path, "model file"), {});
}

std::string describe_model_file(const std::string& path) {
  const ModelDescription d = parse_model_text(system_file_text(path), path);
  check_before_compiling(d);
  // Every run refuses a singular mass matrix at its start: the report must not say the model runs.
  check_mass_matrix(d);
  const std::size_t n = d.coordinates.size();
  std::ostringstream out;
  // A URDF: its tree first (what was merged or ignored), then the model mechint wrote from it.
  if (multibody::is_urdf_file_name(path)) out << multibody::describe_urdf(path);
  out << "model " << d.name << " (" << d.file << ")";
  if (!d.description.empty()) out << ": " << d.description;
  out << "\n  coordinates (" << n << "): " << join(d.coordinates) << "\n";
  std::vector<std::string> periodic;
  for (std::size_t i = 0; i < n; ++i)
    if (d.periodic[i]) periodic.push_back(d.coordinates[i]);
  if (!periodic.empty()) out << "  periodic, written in (-pi, pi]: " << join(periodic) << "\n";
  out << "  parameters:";
  for (const auto& p : d.parameters) out << " " << p.name << "=" << format_number(p.value);
  if (d.parameters.empty()) out << " none";
  out << "\n  holonomic constraints: " << d.constraints.size();
  if (!d.nonholonomic.empty())
    out << "\n  nonholonomic constraints (A(q) q_dot = 0, columns nonholonomic_residual, mu1...): " << d.nonholonomic.size();
  out << "\n  unilateral constraints (impacts): "
      << d.unilateral.size() << "\n  symmetries (Noether momenta J1...): " << d.symmetries.size();
  if (!d.symmetries.empty()) {
    const SymmetryCheck symmetry = check_symmetries(d);
    out << " (L invariant at " << symmetry.points << " sample point" << (symmetry.points == 1 ? "" : "s")
        << ", largest relative defect " << format_number(symmetry.largest_defect, 2) << ")";
  }
  out << "\n  drawing ([draw], for --animate and view): ";
  if (d.draw)
    out << d.draw->points.size() << " moving point" << (d.draw->points.size() == 1 ? "" : "s") << ", "
        << d.draw->fixed.size() << " fixed, " << d.draw->links.size() << " link" << (d.draw->links.size() == 1 ? "" : "s")
        << ", in " << d.draw->dimension << "D";
  else
    out << "none";
  out << "\n";
  const ModelStructure s = analyse_structure(d);
  // What is recognised is the form L = T(q̇) − V(q) with T quadratic in q̇ alone (model_structure.cpp):
  // a constant mass matrix beside other velocity terms (a magnetic or gyroscopic one) is not it.
  out << "  mass matrix: "
      << (s.constant_mass ? "constant (L = T(qdot) - V(q))"
                          : "not shown constant (L is not T(qdot) - V(q) with T quadratic in qdot alone)")
      << "\n";
  if (!d.constraints.empty())
    out << "  constraints: " << (s.quadratic_constraints ? "quadratic in q" : "not quadratic in q") << "\n";
  out << "  energy-momentum method: "
      << (!d.nonholonomic.empty()                              ? "does not apply (nonholonomic constraints)"
          : s.energy_momentum_applies() && d.unilateral.empty() ? "applies"
          : s.forced                                          ? "does not apply (forces)"
                                                              : "does not apply")
      << "\n";
  if (s.forced) out << describe_forces(d);

  // The start, evaluated from the expression trees: energy E = q̇·∂L/∂q̇ − L by a jet over q̇.
  constexpr int kMax = 32;
  using J = ceres::Jet<double, kMax>;
  SymbolValues<J> values;
  for (const auto& p : d.parameters) values.parameters.push_back(p.value);
  for (std::size_t i = 0; i < n; ++i) {
    values.q.push_back(J(d.initial_q[i]));
    values.v.push_back(J(d.initial_v[i], static_cast<int>(i)));
  }
  const J lagrangian = evaluate(d.lagrangian, values);
  double energy = -lagrangian.a;
  for (std::size_t i = 0; i < n; ++i) energy += d.initial_v[i] * lagrangian.v[static_cast<int>(i)];
  double residual = 0.0;
  SymbolValues<double> plain;
  plain.parameters = values.parameters;
  plain.q = d.initial_q;
  plain.v = d.initial_v;
  require_finite(d, energy, "the energy");
  for (const auto& g : d.constraints) {
    const double value = evaluate(g, plain);
    require_finite(d, value, "a constraint");
    residual = std::max(residual, std::abs(value));
  }
  double nonholonomic_residual = 0.0;
  for (const auto& a : d.nonholonomic) {
    const double value = evaluate(a, plain);
    require_finite(d, value, "a nonholonomic constraint");
    nonholonomic_residual = std::max(nonholonomic_residual, std::abs(value));
  }
  for (const auto& phi : d.unilateral) require_finite(d, evaluate(phi, plain), "a unilateral constraint");
  for (const auto& domain : d.domain) require_finite(d, evaluate(domain, plain), "a domain inequality");
  // Full precision: the energy of the start is compared with the compiled model's (tests).
  char energy_text[32];
  std::snprintf(energy_text, sizeof energy_text, "%.17g", energy);
  out << "  start: energy " << energy_text;
  if (!d.constraints.empty()) out << ", constraint residual " << format_number(residual);
  if (!d.nonholonomic.empty()) out << ", nonholonomic residual " << format_number(nonholonomic_residual);
  for (std::size_t c = 0; c < d.unilateral.size(); ++c)
    out << ", phi" << c + 1 << " = " << format_number(evaluate(d.unilateral[c], plain));
  for (std::size_t c = 0; c < d.domain.size(); ++c)
    out << ", domain" << c + 1 << " = " << format_number(evaluate(d.domain[c], plain)) << " (must stay > 0)";
  out << "\n  default method: " << model_file_default_method(d);
  if (d.h) out << ", h = " << format_number(*d.h);
  out << "\n";
  return out.str();
}

}  // namespace mechint::model_file
