#include "model_file/model_kernels_plugin.hpp"

#include "app/kernel_methods.hpp"

#include <dlfcn.h>

#include <iostream>
#include <stdexcept>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/kernel/model_kernels.h"
#include "model_file/model_structure.hpp"
#include "model_file/kernel_codegen.hpp"
#include "model_file/model_cache.hpp"
#include "model_file/model_compiler.hpp"
#include "model_file/model_domain.hpp"
#include "model_file/model_file_system.hpp"

namespace mechint::model_file {
namespace {

/// The toolchain of the kernels: mechint's compiler in C mode, at -O1 (measured: docs/model-files.md
/// "Compile time"), no include directory; the plugin exports its fill function only.
Toolchain kernel_toolchain(const Toolchain& cxx) {
  Toolchain t;
  t.compiler = cxx.compiler;
  t.compiler_identity = cxx.compiler_identity;
  t.mechint_version = cxx.mechint_version;
  t.flags = {"-x", "c", "-std=c99", "-O1", "-fPIC", "-shared", "-fvisibility=hidden", "-w"};
  return t;
}

}  // namespace

methods::MethodStructure kernel_model_structure(const ModelDescription& d) {
  const ModelStructure s = analyse_structure(d);
  return {.num_constraints = static_cast<int>(d.constraints.size()),
          .walls = !d.unilateral.empty(),  // 004 §III
          .nonholonomic = !d.nonholonomic.empty(),  // DESIGN §10
          .forced = s.forced,
          // 003 §5's conditions, as KernelModel::energy_momentum_applies states them: no nonholonomic constraints.
          .energy_momentum = s.energy_momentum_applies() && d.nonholonomic.empty(),
          .constraint_curvature = !d.constraints.empty()};  // the generated kernels carry Σλ_i g_i''
}

std::vector<std::string> kernel_model_methods(const ModelDescription& d) {
  return methods::offered_methods(kernel_model_structure(d));
}

ModelKernelsPlugin::ModelKernelsPlugin(const ModelDescription& model, std::string text)
    : model_(&model), text_(std::move(text)) {}

void* ModelKernelsPlugin::load(bool with_optimal_control) {
  const Toolchain toolchain = kernel_toolchain(find_toolchain());
  const ModelCache cache = ModelCache::open_default();
  // The kernels are a function of the file's text and of the generator: keyed by the generator's
  // identity, the source is generated only when the cache has no library for it (the cached start
  // of a 30-link chain spent a third of its instructions generating a source it did not compile).
  const std::string generator = generator_identity();
  const auto source = [&] { return generate_kernel_source(*model_, with_optimal_control); };
  const std::string key = cache_key(
      generator.empty() ? source() : "generator " + generator + (with_optimal_control ? " with optimal control" : ""),
      text_, toolchain);
  const CachedLibrary library = compiled_library(cache, source, key, toolchain,
      "model '" + model_->name + "' (" + quote_for_message(model_->file, 200) + ")");
  // Through the checked descriptor, never closed (model_file_system.cpp says why).
  const std::string loaded_path = "/proc/self/fd/" + std::to_string(library.fd);
  void* handle = ::dlopen(loaded_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    throw std::runtime_error("cannot load the compiled model " + library.path.string() + ": " + ::dlerror());
  void* fill = ::dlsym(handle, MECHINT_FILL_KERNELS_SYMBOL);
  if (fill == nullptr)
    throw std::runtime_error("the compiled model " + library.path.string() + " has no kernels: " + ::dlerror());
  return fill;
}

app::KernelProblem ModelKernelsPlugin::problem(const app::ParameterValues& v, bool with_optimal_control) {
  void*& loaded = with_optimal_control ? fill_optimal_control_ : fill_;
  if (loaded == nullptr) loaded = load(with_optimal_control);
  const ModelDescription& d = *model_;
  // The kernels keep a pointer to the parameter values: they live as long as the model.
  auto parameters = std::make_shared<std::vector<double>>();
  for (const auto& p : d.parameters) parameters->push_back(v.real(p.name));
  mechint_model_kernels kernels{};
  const auto fill = reinterpret_cast<mechint_fill_kernels_fn>(loaded);
  if (fill(MECHINT_KERNEL_ABI_VERSION, parameters->data(), static_cast<int32_t>(parameters->size()), &kernels) !=
      MECHINT_KERNEL_OK)
    throw std::runtime_error("the compiled model does not fill kernels of ABI version " +
                             std::to_string(MECHINT_KERNEL_ABI_VERSION));
  app::KernelProblem p;
  auto model = std::make_shared<kernel::KernelModel>(kernels, parameters);
  const ModelStructure structure = analyse_structure(d);
  // The generated potential is not declared at most quadratic: Gonzalez's discrete gradient, as the
  // C++ model's energy-momentum took.
  model->set_structure({.constant_mass = structure.constant_mass,
                        .quadratic_constraints = structure.quadratic_constraints,
                        .potential_at_most_quadratic = false});
  const int n = static_cast<int>(d.coordinates.size());
  if (model->dim() != n) throw std::runtime_error("the compiled model's dimension is not the file's");
  p.q0.resize(n);
  p.qdot0.resize(n);
  for (int i = 0; i < n; ++i) {
    p.q0[i] = v.real(d.coordinates[static_cast<std::size_t>(i)]);
    p.qdot0[i] = v.real(d.coordinates[static_cast<std::size_t>(i)] + "_dot");
  }
  p.labels = model_file_labels(d);
  if (!d.domain.empty()) {
    check_start_in_domain(d, *parameters, p.q0);
    // The compiled domain of the model's own table: the check lives in the model, so the table does.
    model->set_step_check(domain_step_check(std::make_shared<const ModelDescription>(d), parameters, &model->table()));
  }
  p.model = std::move(model);
  return p;
}

}  // namespace mechint::model_file
