// The explicit Störmer–Verlet step taken on the model's side of the kernel boundary
// (model_kernels.h, separable_step; kernel/model_adapter.txx), which vi-trapezoid takes on a separable
// L = ½ vᵀM v + b·v − V(q) whenever the model supplies it. What is asserted:
//   - the same numbers, bit for bit, as the methods' own drift and kick around the model's L_q, plain
//     and composed, in each form M⁻¹ is applied in (M = I; M diagonal; M full with b ≠ 0) and at a
//     size above the fixed ones;
//   - one step against the closed form of Kepler's step (v = p + h/2 f(q0), f(q) = −μq/|q|³);
//   - a step whose end the model is not defined at writes nothing and returns
//     MECHINT_KERNEL_OUTSIDE_DOMAIN; in a run it fails as the methods' step fails, leaving the state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernel/galerkin_integrator.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/kepler.hpp"
#include "separable_step_checks.hpp"

namespace {

using mechint::Mat;
using mechint::Vec;
using mechint::VecD;
using mechint::kernel::Composition;
using mechint::kernel::KernelGalerkinIntegrator;
using mechint::kernel::KernelModel;
using mechint::kernel::Vector;
using mechint::systems::Kepler;

/// L = ½ vᵀM v + b·v − V(q) with M full and b ≠ 0 (a charge in a constant magnetic potential, say),
/// V = ½ Σ k_i q_i² + q_0⁴/4: separable with every term of the full form in use.
template <int N>
struct CoupledOscillators {
  static constexpr int kDim = N, kNumConstraints = 0, kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, N>& q, const Vec<T, N>& v) const {
    T kinetic(0.0), linear(0.0), potential = 0.25 * q[0] * q[0] * q[0] * q[0];
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) kinetic += 0.5 * mass(i, j) * v[i] * v[j];
      linear += (0.1 * (i + 1)) * v[i];
      potential += (0.5 * (1.0 + i)) * q[i] * q[i];
    }
    return kinetic + linear - potential;
  }
  /// Symmetric, diagonally dominant: positive definite.
  static double mass(int i, int j) { return i == j ? 2.0 + 0.5 * i : 0.3 / (1 + i + j); }
};

/// A model that declares its constant, diagonal mass matrix (not the identity) and its potential:
/// the adapter's L_q comes from a jet over q of V alone.
struct TwoMasses {
  static constexpr int kDim = 2, kNumConstraints = 0, kNumSymmetries = 0;
  Mat<2, 2> mass_matrix() const { return Eigen::Vector2d(3.0, 0.25).asDiagonal(); }
  template <class T>
  T potential(const Vec<T, 2>& q) const {
    return 0.5 * q[0] * q[0] + 2.0 * q[1] * q[1] + 0.5 * q[0] * q[0] * q[1];  // Hénon–Heiles-like coupling
  }
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (3.0 * v[0] * v[0] + 0.25 * v[1] * v[1]) - potential(q);
  }
};

struct Start {
  std::shared_ptr<const KernelModel> model;
  Vector q0, v0;
  double h;
};

/// The model's own step is taken with the step check off only (its energy balance needs L at q1,
/// which the model's step does not return): both sides run unchecked, so that they can be compared.
std::unique_ptr<KernelGalerkinIntegrator> trapezoid(const Start& s, const Composition& comp, bool model_step) {
  mechint::StepCheckOptions unchecked;
  unchecked.enabled = false;
  auto vi = std::make_unique<KernelGalerkinIntegrator>(*s.model, mechint::kernel::lobatto_tableau(2), s.h, comp,
                                                       mechint::NewtonOptions{}, unchecked);
  vi->allow_model_explicit_steps(model_step);
  vi->start_from_velocity(s.q0, s.v0);
  return vi;
}

bool same_bits(const Vector& a, const Vector& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

/// 2000 steps with the model's step and with the methods' own: equal bits at every step.
void expect_same_bits(const Start& s, const char* name) {
  for (const char* scheme : {"none", "kahan-li6"}) {
    const Composition comp = mechint::kernel::composition_named(scheme);
    auto model_side = trapezoid(s, comp, true), methods_side = trapezoid(s, comp, false);
    ASSERT_TRUE(model_side->explicit_steps() && methods_side->explicit_steps()) << name;
    ASSERT_TRUE(model_side->model_takes_explicit_steps()) << name;
    ASSERT_FALSE(methods_side->model_takes_explicit_steps()) << name;
    for (int i = 0; i < 2000; ++i) {
      model_side->step(), methods_side->step();
      ASSERT_TRUE(same_bits(model_side->q(), methods_side->q()) && same_bits(model_side->p(), methods_side->p()))
          << name << " " << scheme << " step " << i + 1 << ": " << model_side->q().transpose() << " against "
          << methods_side->q().transpose();
    }
    // Not a trajectory that stood still: the run moved and kept its energy (Störmer–Verlet's bound).
    EXPECT_GT((model_side->q() - s.q0).norm(), 1e-2) << name;
  }
}

TEST(ModelExplicitStep, KeplerUnitMassSameBitsAsTheMethodsStep) {
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  expect_same_bits({mechint::kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0}), q0, v0, 0.05}, "kepler");
}

TEST(ModelExplicitStep, DiagonalMassSameBitsAsTheMethodsStep) {
  expect_same_bits({mechint::kernel::ModelAdapter<TwoMasses>::kernels(TwoMasses{}), Eigen::Vector2d(0.4, -0.2),
                    Eigen::Vector2d(0.1, 0.3), 0.02},
                   "two masses");
}

TEST(ModelExplicitStep, FullMassAndLinearTermSameBitsAsTheMethodsStep) {
  expect_same_bits({mechint::kernel::ModelAdapter<CoupledOscillators<3>>::kernels(CoupledOscillators<3>{}),
                    Eigen::Vector3d(0.5, -0.3, 0.2), Eigen::Vector3d(0.1, 0.2, -0.4), 0.02},
                   "3 coupled");
  // Above the methods' fixed sizes (their drift then runs at the runtime size, the model's at its own).
  Vector q0(6), v0(6);
  q0 << 0.5, -0.3, 0.2, 0.1, -0.6, 0.25;
  v0 << 0.1, 0.2, -0.4, 0.3, 0.0, -0.1;
  expect_same_bits({mechint::kernel::ModelAdapter<CoupledOscillators<6>>::kernels(CoupledOscillators<6>{}), q0, v0, 0.02},
                   "6 coupled");
}

TEST(ModelExplicitStep, KeplerStepIsTheClosedForm) {
  const auto model = mechint::kernel::ModelAdapter<Kepler>::kernels(Kepler{1.3});
  const mechint_model_kernels& t = model->table();
  ASSERT_NE(t.separable_step, nullptr);
  const double h = 0.07, mu = 1.3;
  const Eigen::Vector2d q0(0.8, -0.35), p0(0.4, 1.1);
  const auto force = [&](const Eigen::Vector2d& q) { return Eigen::Vector2d(-mu * q / std::pow(q.norm(), 3)); };
  const Eigen::Vector2d f0 = force(q0);
  const Eigen::Vector2d v = p0 + 0.5 * h * f0, q1 = q0 + h * v, f1 = force(q1), p1 = v + 0.5 * h * f1;
  Eigen::Vector2d q_out, v_out, f_out, p_out;
  ASSERT_EQ(t.separable_step(t.context, MECHINT_MASS_UNIT, nullptr, nullptr, h, q0.data(), p0.data(), f0.data(),
                             q_out.data(), v_out.data(), f_out.data(), p_out.data()),
            MECHINT_KERNEL_OK);
  EXPECT_LE((q_out - q1).lpNorm<Eigen::Infinity>(), 4e-16);
  EXPECT_LE((v_out - v).lpNorm<Eigen::Infinity>(), 4e-16);
  EXPECT_LE((f_out - f1).lpNorm<Eigen::Infinity>(), 1e-15 * f1.norm());
  EXPECT_LE((p_out - p1).lpNorm<Eigen::Infinity>(), 1e-15);
  // The full form with M⁻¹ = I and b = 0 gives the same numbers.
  const double identity[4] = {1.0, 0.0, 0.0, 1.0}, zero[2] = {0.0, 0.0};
  Eigen::Vector2d q_full, v_full, f_full, p_full;
  ASSERT_EQ(t.separable_step(t.context, MECHINT_MASS_FULL, identity, zero, h, q0.data(), p0.data(), f0.data(),
                             q_full.data(), v_full.data(), f_full.data(), p_full.data()),
            MECHINT_KERNEL_OK);
  EXPECT_TRUE(q_full == q_out && v_full == v_out && f_full == f_out && p_full == p_out);
}

TEST(ModelExplicitStep, AnEndOutsideTheDomainWritesNothing) {
  // q1 = q0 + h (p0 + h/2 f0) = 0 exactly: Kepler's centre, where L_q is not finite.
  const auto model = mechint::kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0});
  expect_step_onto_the_origin_writes_nothing(model->table());
}

TEST(ModelExplicitStep, ARunIntoTheCentreFailsAsTheMethodsStepFails) {
  // A fall from rest at x = 1/2 with h = 1/2: the first drift lands on the centre exactly
  // (v = h/2 f = −1, q1 = 1/2 − 1/2). Both paths fail at step 1 with a Newton failure and keep the start.
  const Start s{mechint::kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0}), Eigen::Vector2d(0.5, 0.0),
                Eigen::Vector2d(0.0, 0.0), 0.5};
  for (const bool model_step : {true, false}) {
    auto vi = trapezoid(s, Composition{}, model_step);
    ASSERT_EQ(vi->model_takes_explicit_steps(), model_step);
    const Vector p_start = vi->p();
    EXPECT_THROW(vi->step(), mechint::NewtonFailure) << model_step;
    EXPECT_EQ(vi->step_index(), 0);
    EXPECT_TRUE(same_bits(vi->q(), s.q0) && same_bits(vi->p(), p_start)) << model_step;
  }
}

}  // namespace

MECHINT_INSTANTIATE_MODEL_KERNELS(CoupledOscillators<3>);
MECHINT_INSTANTIATE_MODEL_KERNELS(CoupledOscillators<6>);
MECHINT_INSTANTIATE_MODEL_KERNELS(TwoMasses);
