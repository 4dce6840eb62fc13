#pragma once
/// \file
/// What a model file declares, checked before the model is compiled or run: that the Lagrangian is
/// invariant under each declared symmetry generator (else its "conserved" momentum is not), that
/// the start lies in the declared domain, and that the mass matrix is invertible at the start. Evaluated on the checked expression trees
/// (model_file/evaluate.hpp) with dual numbers: exact derivatives, no compiler.

#include <string>

#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// The result of checking the symmetries: how many sample points were used and the largest relative
/// invariance defect found (0 when there are no symmetries).
struct SymmetryCheck {
  int points = 0;
  double largest_defect = 0.0;
};

/// Checks, at the start and (for a model without holonomic constraints) at sample points around it,
/// that dL/ds of L(q + s ξ(q), q̇ + s Dξ(q) q̇) vanishes at s = 0 relative to the size of its terms,
/// for every generator ξ; with constraints, also that ∇g(q0)·ξ(q0) = 0 (the motion stays on the
/// manifold). Throws InvalidInput naming the generator and where it is in the file.
SymmetryCheck check_symmetries(const ModelDescription& d);

/// Refuses (InvalidInput, at the Lagrangian's place in the file) a model whose mass matrix
/// ∂²L/∂q̇² — bordered by the holonomic constraints' Jacobian, as every run takes it — is singular
/// at the file's start: no method can integrate it (the runs refuse it at their start), so `check`
/// must not report it as a model that runs. A coordinate whose velocity does not occur in L at all
/// (no kinetic term: singular everywhere) is named.
void check_mass_matrix(const ModelDescription& d);

}  // namespace mechint::model_file
