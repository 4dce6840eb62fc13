#pragma once
/// \file
/// Reading and checking a model file (DESIGN §6): TOML through toml++, expressions through
/// expression_parser.hpp, every problem reported as one line `FILE:LINE:COLUMN: what is wrong`
/// (mechint::InvalidInput, exit code 2).

#include <cstddef>
#include <string>
#include <string_view>

#include "model_file/input_file.hpp"
#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// Largest model file accepted, in bytes (model_file/input_file.hpp).
inline constexpr std::size_t kMaxModelFileSize = kMaxTextFileSize;
/// Most coordinates a model file may declare: not a limit of the generator (its graph and code are
/// linear in what they compute) but of memory, as the built-in `pendulum-chain`'s 1000 links: the
/// kernels write n x n Hessian blocks and a step holds about a dozen n x n matrices, so a hostile
/// file declaring 10^5 names as coordinates would exhaust memory before any message.
inline constexpr std::size_t kMaxCoordinates = 1000;
/// Longest name (of the model, a coordinate, a parameter, a control or a definition), in bytes.
inline constexpr std::size_t kMaxNameLength = 64;

/// Parses and checks the text of a model file. `file_label` names the file in messages and in the
/// result's `file`. Throws mechint::InvalidInput `FILE:LINE:COLUMN: what is wrong` on a text
/// beyond the limits of TOML inputs (model_file/toml_input.hpp: size, nesting, keys), a TOML syntax
/// error, an unknown key, a value of the wrong type, a missing required key, a bad or duplicate
/// name, a non-finite number, a wrong count (symmetry components, forces, constraints) or any
/// error in an expression. Definitions (`[definitions]`) are substituted into the trees: the
/// result holds only coordinates, velocities, parameters, controls and t.
ModelDescription parse_model_text(std::string_view text, const std::string& file_label);

/// A column that `run` writes besides the coordinates (energy, J1, lambda1, u1, ...): no model name
/// may be one.
bool is_output_column_name(const std::string& name);

/// A name that no coordinate, parameter, control or definition may take: a function of the grammar,
/// the constant pi, the time t, or an output column.
bool is_reserved_name(const std::string& name);

/// True for a name that ends in ".toml": a model file rather than a built-in system.
bool is_model_file_name(const std::string& name);

/// Reads the model file at `path` and parses it with parse_model_text (labelled `path`). Refuses
/// with mechint::InvalidInput what is not a regular file, is larger than kMaxModelFileSize or
/// cannot be read.
ModelDescription read_model_file(const std::string& path);

}  // namespace mechint::model_file
