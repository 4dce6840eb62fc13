#pragma once
/// \file
/// A model file as derivative kernels (include/mechint/kernel/model_kernels.h): its generated C
/// (model_file/kernel_codegen.hpp) compiled once into a plugin that holds the kernels only, behind
/// the versioned C ABI — no mechint header, no C++ object across dlopen — at a moderate optimisation
/// level, cached by the hash of (the generated source, the file's text, the compiler and its flags)
/// in the private model cache (model_file/model_cache.hpp), and loaded through the checked
/// descriptor. The methods on kernels (app/kernel_methods.hpp) are compiled into mechint itself.

#include <memory>
#include <string>
#include <vector>

#include "app/kernel_methods.hpp"
#include "app/parameters.hpp"
#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// The methods a model file offers, from its description alone (the registry's rows its structure
/// admits, in the registry's order): every one runs on the kernels. A declared domain is
/// checked on kernels (model_file/model_domain.hpp), walls are the kernels' `unilateral`.
std::vector<std::string> kernel_model_methods(const ModelDescription& model);
/// What decides a model file's methods (src/methods/method_registry.hpp), known from its description
/// before anything is compiled.
methods::MethodStructure kernel_model_structure(const ModelDescription& model);

class ModelKernelsPlugin {
 public:
  ModelKernelsPlugin(const ModelDescription& model, std::string text);

  /// The model's problem for these parameter values and initial values: its kernels (the plugin
  /// compiled and loaded on first use), the start and the file's output names.
  /// `with_optimal_control`: the kernels of a second plugin that also holds what `mechint optimize`
  /// asks for (kernel_codegen.hpp), compiled only when optimize asks.
  app::KernelProblem problem(const app::ParameterValues& values, bool with_optimal_control = false);

 private:
  /// The fill function of the plugin (with optimal control's kernels or not), compiled and loaded.
  void* load(bool with_optimal_control);

  const ModelDescription* model_;
  std::string text_;
  void* fill_ = nullptr;                  ///< mechint_fill_kernels_fn of the runs' plugin
  void* fill_optimal_control_ = nullptr;  ///< the same, of the plugin with optimal control's kernels
};

}  // namespace mechint::model_file
