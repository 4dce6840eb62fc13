#pragma once
/// \file
/// What the structure of a checked model file's expressions tells about the model (DESIGN §6,
/// docs/model-files.md): a constant mass matrix and quadratic constraints, the conditions of the
/// energy–momentum method, read from the expression trees.

#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// What the structure of the expressions tells about the model (DESIGN §6, docs/model-files.md).
struct ModelStructure {
  /// L = T(q̇) − V(q) with T a quadratic form in the velocities whose coefficients depend on
  /// neither q nor t: the mass matrix is constant (a condition of the energy–momentum method).
  bool constant_mass = false;
  /// Every holonomic constraint is a polynomial of degree at most 2 in q (the other condition).
  bool quadratic_constraints = false;
  /// The file declares forces: the model is forced (model/forces.hpp), which the energy–momentum
  /// method does not integrate.
  bool forced = false;

  /// The energy–momentum method integrates the model.
  bool energy_momentum_applies() const { return constant_mass && quadratic_constraints && !forced; }
};

/// Reads the structure of `model` from its expression trees (a sufficient test: a constant mass
/// written in an unusual way, e.g. `(x_dot + 1)^2 - 2*x_dot - 1`, is not recognised).
ModelStructure analyse_structure(const ModelDescription& model);

}  // namespace mechint::model_file
