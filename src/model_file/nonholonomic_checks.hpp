#pragma once
/// \file
/// The check of a model file's `nonholonomic` expressions (DESIGN §10; docs/model-files.md): each must
/// be a(q)·q̇, linear and homogeneous in the velocities, so that the constraints are A(q) q̇ = 0. The
/// test is structural, on the tree as written (definitions substituted): a sum of terms each a
/// velocity times factors free of velocities, a velocity divided by such a factor, or a velocity to
/// the power 1. An expression that is linear only after simplification ((x_dot + 1) - 1) is refused:
/// the message says which part to rewrite.

#include <optional>
#include <string>

#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// What makes an expression not linear in the velocities, and where.
struct LinearityDefect {
  SourcePosition where;
  std::string what;
};

/// None when `e` is linear and homogeneous in the velocities (and not identically zero).
std::optional<LinearityDefect> nonholonomic_defect(const Expression& e);

}  // namespace mechint::model_file
