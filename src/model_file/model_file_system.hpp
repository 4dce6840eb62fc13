#pragma once
/// \file
/// A model file as a system of the command line (DESIGN §4, §6): `mechint run my/model.toml`.
///
/// The file is parsed and checked at once (model_file/model_file.hpp: every error one
/// `FILE:LINE:COLUMN` line, exit 2); its settable names are known from the file alone, so a wrong
/// `--set` is refused before anything is compiled. The first call that needs the model itself
/// (a run, optimize) generates the C source of its derivative kernels (model_file/kernel_codegen.hpp),
/// compiles it once into the cache (model_file/model_compiler.hpp) and loads it with dlopen
/// (model_file/model_kernels_plugin.hpp).

#include <string>
#include <vector>

#include "app/parameters.hpp"
#include "app/problem.hpp"
#include "model_file/model_description.hpp"
#include "model_file/model_file.hpp"  // is_model_file_name

namespace mechint::app {
struct SystemEntry;
}

namespace mechint::model_file {

/// The settable names of a model file's system: its parameters, then each coordinate's initial
/// value and initial velocity (`NAME_dot`), with the file's values as defaults.
std::vector<app::ParameterSpec> model_file_parameters(const ModelDescription& model);

/// The file's `method`, or vi-midpoint (vi-trapezoid in the impact driver when there are
/// unilateral constraints).
std::string model_file_default_method(const ModelDescription& model);

/// Output columns (DESIGN §6): the coordinates, `energy`, `J1…` for the symmetries (the recorder
/// adds `J1_work…` with forces, `constraint_residual` and `lambda1…`, and `u1…` for the controls);
/// `periodic` coordinates wrapped.
app::OutputLabels model_file_labels(const ModelDescription& model);

/// The system of the model file at `path` (see the file comment); its control inputs are the
/// file's `controls`, by their names. Throws InvalidInput for a malformed file.
app::SystemEntry model_file_system(const std::string& path);

/// What `mechint check FILE` prints: what mechint derived from the file (dimension, constraints,
/// symmetries, structure, forces and controls, the start's energy and constraint residual),
/// without compiling it.
std::string describe_model_file(const std::string& path);

}  // namespace mechint::model_file
