#pragma once
/// \file
/// System::from_model (mechint/system.hpp): the model's derivative kernels by automatic
/// differentiation (kernel/model_adapter.txx, the backend the built-in systems use), instantiated in
/// the caller's source for its model type (a built-in's type: the library's); everything else is
/// compiled in the library.

#include <utility>

// The AD backend (kernel/model_adapter.txx) with the built-in systems' kernels declared: a program
// that gives a built-in's struct to from_model, or a source that also runs built-ins, links to the
// library's instantiations instead of making its own (kernel/builtin_model_kernels.hpp).
#include "kernel/builtin_model_kernels.hpp"
#include "mechint/model/lagrangian_model.hpp"
#include "mechint/model/unilateral.hpp"

namespace mechint {

template <class Model>
System System::from_model(Model model, const Settings& settings) {
  static_assert(LagrangianModel<Model>,
                "System::from_model: the model needs kDim, kNumConstraints, kNumSymmetries and a lagrangian(q, v) "
                "templated on the scalar (docs/adding-a-system.md)");
  // Walls (φ(q) ≥ 0) are part of the kernels when the model declares them: its runs take the
  // impact driver's methods, as a built-in's with its walls on.
  constexpr bool kWalls = HasUnilateralConstraints<Model>;
  return from_kernels(kernel::ModelAdapter<Model>::kernels_for_runs(std::move(model), kWalls), settings);
}

}  // namespace mechint
