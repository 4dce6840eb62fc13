#pragma once
/// \file
/// What the source generated from a model file (model_file/codegen.hpp) includes: the math of the
/// grammar for every scalar type, and `make_model_file_entry`, which turns the generated model
/// struct into a system of the command line with every method of the table its structure allows.
///
/// Compiled into the model's shared library, not into mechint: the non-template functions it calls
/// (model_file/model_file_system.hpp, app/) are resolved against the executable that loads it.

#include <array>
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

/// The system of a model file whose generated model struct is `Model`: its parameters and initial
/// values are those of `d` (model_file_parameters), its methods the rows of the table `Model` meets.
template <class Model>
app::SystemEntry make_model_file_entry(const ModelDescription& d) {
  constexpr int n = Model::kDim;
  auto with_problem = [d](const app::ParameterValues& values, auto&& f) {
    app::Problem<Model> p;
    for (std::size_t i = 0; i < d.parameters.size(); ++i) p.model.p_[i] = values.real(d.parameters[i].name);
    VecD<n> velocity;
    for (int i = 0; i < n; ++i) {
      p.q0[i] = values.real(d.coordinates[i]);
      velocity[i] = values.real(d.coordinates[i] + "_dot");
    }
    p.labels = model_file_labels(d);
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
  return app::make_system_entry(d.name, d.description, model_file_default_method(d),
                                [d](const app::Overrides&) { return model_file_parameters(d); }, with_problem);
}

}  // namespace mechint::model_file
