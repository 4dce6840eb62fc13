#pragma once
/// \file
/// What the source generated from a model file (model_file/codegen.hpp) includes: the math of the
/// grammar for every scalar type, and `make_model_file_optimize_entry`, which turns the generated
/// model struct into the system `mechint optimize` solves its optimal control problems on.
///
/// Compiled into the model's shared library, not into mechint: the non-template functions it calls
/// (model_file/model_file_system.hpp, app/) are resolved against the executable that loads it.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "app/system_entry.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/model/unilateral.hpp"
#include "model_file/math.hpp"
#include "model_file/model_description.hpp"
#include "model_file/model_file_system.hpp"

namespace mechint::model_file {

/// The constant mass matrix of a model whose kinetic energy is `model.kinetic(v)`, a quadratic
/// form: its Hessian, exact by a jet of jets (at v = 0, where a quadratic form's Hessian is the same).
template <class M>
Mat<M::kDim, M::kDim> constant_mass_matrix(const M& model) {
  constexpr int n = M::kDim;
  Vec<Jet2<n>, n> v;
  for (int i = 0; i < n; ++i) v[i] = Jet2<n>(Jet<n>(0.0, i), i);
  const Jet2<n> kinetic = model.template kinetic<Jet2<n>>(v);
  Mat<n, n> m;
  for (int i = 0; i < n; ++i) m.row(i) = kinetic.v[i].v.transpose();
  return m;
}

/// Throws DomainError when q is outside the model file's `domain` (some d_i(q) > 0 fails), naming the
/// inequality, its value and where it is in the file.
template <class Model>
void check_domain(const Model& model, const VecD<Model::kDim>& q, double t, const char* where) {
  const auto values = model.template domain<double>(q);
  for (int i = 0; i < Model::kNumDomain; ++i) {
    if (values[i] > 0.0) continue;
    const ModelDescription& d = *model.description_;
    const SourcePosition& p = d.domain_positions[static_cast<std::size_t>(i)];
    throw DomainError("the motion left the model's domain " + std::string(where) + " t = " + format_number(t) + ": " +
                      d.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " +
                      quote_for_message(d.domain_text[static_cast<std::size_t>(i)], 80) + " = " + format_number(values[i]) +
                      " is not > 0 (a singular point of the model, or a step too large to resolve it)");
  }
}

/// `with_problem(values, f)`: f called with the problem of the generated model `Model` at these
/// parameter and initial values (those of `d`, model_file_parameters).
template <class Model>
auto model_file_problem(const ModelDescription& d) {
  constexpr int n = Model::kDim;
  const auto shared = std::make_shared<const ModelDescription>(d);
  return [d, shared](const app::ParameterValues& values, auto&& f) {
    app::Problem<Model> p;
    for (std::size_t i = 0; i < d.parameters.size(); ++i) p.model.p_[i] = values.real(d.parameters[i].name);
    if constexpr (requires { p.model.description_; }) p.model.description_ = shared;
    VecD<n> velocity;
    for (int i = 0; i < n; ++i) {
      p.q0[i] = values.real(d.coordinates[i]);
      velocity[i] = values.real(d.coordinates[i] + "_dot");
    }
    p.labels = model_file_labels(d);
    if constexpr (requires { Model::kNumDomain; }) {
      // A start outside the domain is bad input (exit 2), not a failure of the motion.
      try {
        check_domain(p.model, p.q0, 0.0, "at the start,");
      } catch (const DomainError& e) {
        throw InvalidStart(d.name + ": " + e.what());
      }
    }
    if constexpr (HasUnilateralConstraints<Model>) {
      // The impact driver (004 §III) starts from canonical momenta: p0 = ∂L/∂q̇ at the start.
      const VecD<Model::kNumUnilateral> phi = unilateral_values(p.model, p.q0);
      for (int c = 0; c < Model::kNumUnilateral; ++c)
        if (!(phi[c] >= 0.0))
          throw InvalidStart(d.name + ": the start violates unilateral constraint " + std::to_string(c + 1) +
                             ", phi(q0) = " + format_number(phi[c]) + " < 0");
      p.initial = app::InitialData::kMomentum;
      p.initial_data = lagrangian_dv(p.model, p.q0, velocity);
      if (!p.initial_data.allFinite())
        throw InvalidStart(d.name + ": the momentum dL/dq_dot is not finite at the start");
    } else {
      p.initial = app::InitialData::kVelocity;
      p.initial_data = velocity;
    }
    return f(p);
  };
}

/// The system of a model file for `mechint optimize`: only `optimize` is set (the runs go through
/// the model's kernels), so that the method table is not instantiated.
template <class Model>
app::SystemEntry make_model_file_optimize_entry(const ModelDescription& d) {
  app::SystemEntry e;
  e.name = d.name;
  e.optimize = [with_problem = model_file_problem<Model>(d)](const app::ParameterValues& v,
                                                             const app::OptimalControlSpec& spec,
                                                             const std::vector<std::string>& controls) {
    return with_problem(v, [&]<class P>(const P& p) { return app::optimize_problem(p, spec, controls); });
  };
  return e;
}

}  // namespace mechint::model_file
