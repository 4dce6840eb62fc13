#pragma once
/// \file
/// From a checked model file (model_file/model_description.hpp) to the C++ source of a model struct
/// that satisfies the `LagrangianModel` concept (model/lagrangian_model.hpp), templated on the
/// scalar so that every AD derivative of the integrators applies, plus the entry point the loader
/// calls (model_file/generated_model_support.hpp).
///
/// The source is built from the expression trees only: numbers are printed from their double
/// values, names become indices (`q[2]`, `p_[0]`), operators and functions come from fixed tables.
/// Nothing of the file's text reaches the compiler, so a model file cannot inject code.

#include <string>

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

  /// The energy–momentum method integrates the model (the generated model declares its mass matrix).
  bool energy_momentum_applies() const { return constant_mass && quadratic_constraints && !forced; }
};

/// Reads the structure of `model` from its expression trees (a sufficient test: a constant mass
/// written in an unusual way, e.g. `(x_dot + 1)^2 - 2*x_dot - 1`, is not recognised).
ModelStructure analyse_structure(const ModelDescription& model);

/// The C++ source of the model struct and its entry point `mechint_model_file_entry_v1`, which hands
/// back a system for `mechint optimize` (DMOC's derivatives by AD of the struct); every other command
/// runs on the model's derivative kernels (model_file/kernel_codegen.hpp).
std::string generate_model_source(const ModelDescription& model);

/// Version of the generated code's layout and entry point; part of the compile cache key.
inline constexpr int kGeneratedCodeVersion = 3;

}  // namespace mechint::model_file
