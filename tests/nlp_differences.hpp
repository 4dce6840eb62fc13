#pragma once
// The exact derivatives a nonlinear program hands Ipopt (optimal/nonlinear_program.hpp) against
// central differences of its own objective, constraints and Lagrangian's gradient: the independent
// check of the derivatives of the DMOC transcription (kernel/kernel_dmoc.hpp; test_dmoc.cpp,
// test_kernel_dmoc.cpp).
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <random>

namespace mechint {

/// Checks the program's objective gradient, Jacobian and Hessian of the Lagrangian σ∇²f + Σλ∇²g at
/// x against central differences of its objective, of its constraints and of its Lagrangian's
/// gradient (assembled from the Jacobian).
template <class Program>
void expect_derivatives_match_differences_at(const Program& program, const Eigen::VectorXd& x,
                                             const Eigen::VectorXd& lambda, double sigma) {
  const int nv = program.num_variables(), nc = program.num_constraints();
  ASSERT_EQ(x.size(), nv);
  ASSERT_EQ(lambda.size(), nc);
  const double eps = 1e-6;

  Eigen::VectorXd objective_gradient(nv);
  program.objective_gradient(x, objective_gradient);
  for (int j = 0; j < nv; ++j) {
    Eigen::VectorXd xp = x, xm = x;
    xp[j] += eps;
    xm[j] -= eps;
    const double slope = (program.objective(xp) - program.objective(xm)) / (2 * eps);
    EXPECT_NEAR(objective_gradient[j], slope, 1e-7 * (1.0 + std::abs(slope))) << "objective gradient " << j;
  }

  const auto& jac = program.jacobian_structure();
  Eigen::VectorXd jac_values(jac.size());
  program.constraint_jacobian(x, jac_values);
  Eigen::MatrixXd dense_jac = Eigen::MatrixXd::Zero(nc, nv);
  for (std::size_t e = 0; e < jac.size(); ++e) dense_jac(jac[e].row, jac[e].col) += jac_values[e];

  Eigen::VectorXd gp(nc), gm(nc);
  for (int j = 0; j < nv; ++j) {
    Eigen::VectorXd xp = x, xm = x;
    xp[j] += eps;
    xm[j] -= eps;
    program.constraints(xp, gp);
    program.constraints(xm, gm);
    const Eigen::VectorXd column = (gp - gm) / (2 * eps);
    EXPECT_LT((column - dense_jac.col(j)).norm(), 1e-7 * (1.0 + column.norm())) << "Jacobian column " << j;
  }

  // ∇_x(σf + λ·g) = σ∇f + Jᵀλ, differenced to give the Hessian.
  const auto lagrangian_gradient = [&](const Eigen::VectorXd& at) {
    Eigen::VectorXd values(jac.size()), grad(nv);
    program.constraint_jacobian(at, values);
    program.objective_gradient(at, grad);
    grad *= sigma;
    for (std::size_t e = 0; e < jac.size(); ++e) grad[jac[e].col] += values[e] * lambda[jac[e].row];
    return grad;
  };
  const auto& hess = program.hessian_structure();
  Eigen::VectorXd hess_values(hess.size());
  program.lagrangian_hessian(x, sigma, lambda, hess_values);
  Eigen::MatrixXd dense_hess = Eigen::MatrixXd::Zero(nv, nv);
  for (std::size_t e = 0; e < hess.size(); ++e) {
    ASSERT_GE(hess[e].row, hess[e].col) << "the Hessian's structure is its lower triangle";
    dense_hess(hess[e].row, hess[e].col) += hess_values[e];
    if (hess[e].row != hess[e].col) dense_hess(hess[e].col, hess[e].row) += hess_values[e];
  }
  for (int j = 0; j < nv; ++j) {
    Eigen::VectorXd xp = x, xm = x;
    xp[j] += eps;
    xm[j] -= eps;
    const Eigen::VectorXd column = (lagrangian_gradient(xp) - lagrangian_gradient(xm)) / (2 * eps);
    EXPECT_LT((column - dense_hess.col(j)).norm(), 1e-6 * (1.0 + column.norm())) << "Hessian column " << j;
  }
}

/// The same at a random point (every unknown and multiplier uniform in [−1, 1], σ = 0.7).
template <class Program>
void expect_derivatives_match_differences(const Program& program, std::mt19937& rng) {
  const int nv = program.num_variables(), nc = program.num_constraints();
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd x(nv), lambda(nc);
  for (int i = 0; i < nv; ++i) x[i] = uniform(rng);
  for (int i = 0; i < nc; ++i) lambda[i] = uniform(rng);
  expect_derivatives_match_differences_at(program, x, lambda, 0.7);
}

}  // namespace mechint
