// Starts (velocity, momentum, two points, 000's own procedure) and the typed Newton failure, on the
// kernel engine's variational integrator with the built-ins' kernels compiled once in the library.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel/kernel_legendre.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/analysis/error_measures.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using systems::Kepler;
using systems::SphericalPendulum;

std::shared_ptr<const KernelModel> kernels_of(const SphericalPendulum& model) {
  return kernel::ModelAdapter<SphericalPendulum>::kernels_for_runs(model);
}
std::shared_ptr<const KernelModel> kernels_of(const Kepler& model) {
  return kernel::ModelAdapter<Kepler>::kernels_for_runs(model);
}

TEST(Starts, VelocityAndMomentumStartsAgree) {
  const SphericalPendulum model{2.0, 1.0, 9.81};
  const auto kernels = kernels_of(model);
  const Vector q0 = VecD<3>(0.6, 0.0, -0.8), v0 = VecD<3>(0.0, 1.5, 0.0);
  KernelVariationalIntegrator a(*kernels, Rule::kMidpoint, 0.01), b(*kernels, Rule::kMidpoint, 0.01);
  a.start_from_velocity(q0, v0);
  b.start_from_momentum(q0, model.mass * v0);
  for (int k = 0; k < 500; ++k) {
    a.step();
    b.step();
  }
  EXPECT_LE((a.q() - b.q()).lpNorm<Eigen::Infinity>(), 1e-12);
  // The recovered velocity of the start is the given one.
  EXPECT_LE((kernel::tangent_velocity(*kernels, q0, model.mass * v0, Vector::Zero(3)) - v0).norm(), 1e-14);
}

TEST(Starts, SourceProcedureReachesTheOrbitAtTimeH) {
  // 000 §5.1: Euler step at h_f, then the integrator at h_f up to t = h. The Euler point is off by
  // O(h_f²), i.e. the two-point start carries a velocity error O(h_f), so the point reached at t = h
  // converges to the exact one at order 1 in h_f.
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  const auto kernels = kernels_of(Kepler{1.0});
  const double h = 0.01;
  std::vector<double> fine_hs, errs;
  for (double fine_h : {1e-3, 5e-4, 2.5e-4}) {
    KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, h);
    integ.start_source_procedure(q0, v0, fine_h);
    EXPECT_NEAR(integ.time(), h, 1e-15);
    EXPECT_EQ(integ.step_index(), 1);
    fine_hs.push_back(fine_h);
    errs.push_back((integ.q() - Kepler::exact_position(1.0, 1.0, 0.5, h)).norm());
  }
  EXPECT_NEAR(convergence_order(fine_hs, errs), 1.0, 0.1);
  // Size: the Euler point misses by h_f²|a|/2, a velocity error h_f|a|/2 carried over time h, with
  // |a| = μ/r² = 4 at pericentre.
  EXPECT_LE(errs.back(), h * fine_hs.back() * 4.0 / 2 * 1.1);
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, h);
  EXPECT_THROW(integ.start_source_procedure(q0, v0, 0.003), InvalidStart);  // h not a multiple
}

TEST(Starts, SourceProcedureStaysOnTheConstraint) {
  const auto kernels = kernels_of(SphericalPendulum{});
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, 0.01);
  integ.start_source_procedure(VecD<3>(0.6, 0.0, -0.8), VecD<3>(0.0, 1.5, 0.0), 1e-4);
  EXPECT_LE(std::abs(integ.constraint_residual()[0]), 1e-14);
  integ.step();
  EXPECT_LE(std::abs(integ.constraint_residual()[0]), 1e-14);
}

TEST(Failures, NewtonFailureNamesStepTimeResidualAndIterations) {
  NewtonOptions options;
  options.max_iterations = 8;
  const auto kernels = kernels_of(SphericalPendulum{});
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, 3.0, options);
  integ.start_from_velocity(VecD<3>(0.6, 0.0, -0.8), VecD<3>(0.0, 1.5, 0.0));
  const Vector q_before = integ.q();
  try {
    integ.step();
    FAIL() << "a 3 s step of a 2 s pendulum must not converge";
  } catch (const NewtonFailure& e) {
    EXPECT_EQ(e.step_index(), 1);
    EXPECT_DOUBLE_EQ(e.time(), 3.0);
    EXPECT_EQ(e.iterations(), 8);
    EXPECT_GT(e.residual_norm(), 1e-6);
    EXPECT_NE(std::string(e.what()).find("step 1"), std::string::npos);
  }
  // The state is left at the last good step.
  EXPECT_EQ(integ.q(), q_before);
  EXPECT_EQ(integ.step_index(), 0);
}

TEST(Failures, NonPositiveOrNonFiniteStepIsRejected) {
  const auto kernels = kernels_of(Kepler{});
  EXPECT_THROW(KernelVariationalIntegrator(*kernels, Rule::kMidpoint, 0.0), std::invalid_argument);
  EXPECT_THROW(KernelVariationalIntegrator(*kernels, Rule::kMidpoint, -1.0), std::invalid_argument);
  EXPECT_THROW(KernelVariationalIntegrator(*kernels, Rule::kMidpoint, std::nan("")), std::invalid_argument);
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, 0.1);
  EXPECT_THROW(integ.start_from_velocity(VecD<2>(std::nan(""), 0), VecD<2>(0, 1)), InvalidStart);
}

}  // namespace
}  // namespace mechint
