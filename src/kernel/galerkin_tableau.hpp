#pragma once
/// \file
/// The coefficients of the Galerkin variational integrators (variational partitioned Runge–Kutta
/// methods, DESIGN §10; Marsden & West 2001 §2.6.6, Hairer–Lubich–Wanner VI.6.2 Thm 6.4) and of the
/// compositions of a symmetric method (HLW V.3.2).
///
/// A Galerkin discrete Lagrangian interpolates q by a polynomial of degree s through its stage
/// velocities V_j and applies an s-point quadrature (b_i, c_i):
///
///     Ld(q0, q1) = ext h Σ_i b_i L(Q_i, V_i),   Q_i = q0 + h Σ_j a_ij V_j,   q1 = q0 + h Σ_j b_j V_j,
///
/// a_ij = ∫_0^{c_i} ℓ_j(τ) dτ (ℓ_j: Lagrange basis over the nodes c). Its discrete Euler–Lagrange
/// equations are the partitioned Runge–Kutta method (a, b) for q and (ā, b) for p with
/// b_i ā_ij + b_j a_ji = b_i b_j. Gauss–Legendre nodes give order 2s; Lobatto nodes (IIIA–IIIB)
/// order 2s − 2.

#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

namespace mechint::kernel {

enum class Quadrature { kGauss, kLobatto };

struct GalerkinTableau {
  Quadrature quadrature = Quadrature::kGauss;
  int stages = 0;
  int order = 0;
  Eigen::MatrixXd a, a_bar;  ///< the q coefficients a_ij and the p coefficients ā_ij
  Eigen::VectorXd b, c;
  /// e_ij = ℓ_j(1 + c_i): the stage velocities of the next step predicted by extending this step's
  /// interpolating polynomial (a predictor of order s for Newton's first iterate).
  Eigen::MatrixXd extrapolate;
  /// ℓ_j(1): the interpolant's velocity at the end of the step.
  Eigen::VectorXd end_weights;
};

/// s-stage Gauss–Legendre (s ≥ 1; s = 1 is the midpoint rule's discrete Lagrangian).
GalerkinTableau gauss_tableau(int stages);
/// s-stage Lobatto IIIA–IIIB (s ≥ 2).
GalerkinTableau lobatto_tableau(int stages);

/// The coefficients γ_1..γ_m (Σγ = 1) of a symmetric composition Φ_{γ_m h} ∘ … ∘ Φ_{γ_1 h} of a
/// symmetric method of order 2, and the order they reach.
struct Composition {
  std::string name;
  int order = 2;
  std::vector<double> gammas{1.0};
};

/// "none", "yoshida4" (the triple jump, 3 stages; Yoshida 1990), "suzuki4" (5 stages; Suzuki 1990),
/// "kahan-li6" (9 stages), "kahan-li8" (17 stages; Kahan & Li 1997, HLW V.3 eqs. (3.11)–(3.12)).
/// Throws std::invalid_argument for another name.
Composition composition_named(std::string_view name);
/// The names composition_named accepts, "none" first.
const std::vector<std::string>& composition_names();

}  // namespace mechint::kernel
