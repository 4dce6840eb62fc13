#pragma once
// Models with the structure the energy–momentum integrator needs (a constant mass matrix and a
// potential), shared by the tests of its fixed-size and kernel forms.

#include <cmath>

#include "mechint/core/linear_algebra.hpp"

namespace mechint::testing {

/// The Kepler problem (μ = 1, unit mass) with the structure the energy–momentum integrator needs:
/// a constant mass matrix and a potential (V is not quadratic: Gonzalez's discrete gradient).
struct CartesianKepler {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 1;
  template <class T>
  T potential(const Vec<T, 2>& q) const {
    using std::sqrt;
    return -1.0 / sqrt(q[0] * q[0] + q[1] * q[1]);
  }
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) - potential<T>(q);
  }
  Mat<2, 2> mass_matrix() const { return Mat<2, 2>::Identity(); }
  VecD<2> symmetry_generator(int, const VecD<2>& q) const { return VecD<2>(-q[1], q[0]); }
};

/// The spherical pendulum (unit mass and length, g = 9.81) in Cartesian coordinates, held by one
/// quadratic constraint; the potential is linear. Rotation about z is its symmetry.
struct CartesianSphericalPendulum {
  static constexpr int kDim = 3;
  static constexpr int kNumConstraints = 1;
  static constexpr int kNumSymmetries = 1;
  static constexpr bool kPotentialAtMostQuadratic = true;
  double gravity = 9.81;
  template <class T>
  T potential(const Vec<T, 3>& q) const {
    return gravity * q[2];
  }
  template <class T>
  T lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - potential<T>(q);
  }
  template <class T>
  Vec<T, 1> constraints(const Vec<T, 3>& q) const {
    return Vec<T, 1>(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0);
  }
  Mat<3, 3> mass_matrix() const { return Mat<3, 3>::Identity(); }
  VecD<3> symmetry_generator(int, const VecD<3>& q) const { return VecD<3>(-q[1], q[0], 0.0); }

  /// The start at angle θ from the downward vertical in the x–z plane, moving along y at speed w.
  static void start(double theta, double w, VecD<3>& q, VecD<3>& v) {
    q << std::sin(theta), 0.0, -std::cos(theta);
    v << 0.0, w, 0.0;
  }
};

/// The planar double pendulum of DESIGN §2 (m = l = 1, g = 10) in the Cartesian positions of its
/// masses, held by two quadratic constraints; the potential is linear.
struct CartesianDoublePendulum {
  static constexpr int kDim = 4;
  static constexpr int kNumConstraints = 2;
  static constexpr int kNumSymmetries = 0;
  static constexpr bool kPotentialAtMostQuadratic = true;
  double gravity = 10.0;
  template <class T>
  T potential(const Vec<T, 4>& q) const {
    return gravity * (q[1] + q[3]);
  }
  template <class T>
  T lagrangian(const Vec<T, 4>& q, const Vec<T, 4>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) - potential<T>(q);
  }
  template <class T>
  Vec<T, 2> constraints(const Vec<T, 4>& q) const {
    const T dx = q[2] - q[0], dy = q[3] - q[1];
    return Vec<T, 2>(q[0] * q[0] + q[1] * q[1] - 1.0, dx * dx + dy * dy - 1.0);
  }
  Mat<4, 4> mass_matrix() const { return Mat<4, 4>::Identity(); }

  /// The start of angles θ1, θ2 from the downward vertical and their rates.
  static void start(double th1, double th2, double w1, double w2, VecD<4>& q, VecD<4>& v) {
    q << std::sin(th1), -std::cos(th1), std::sin(th1) + std::sin(th2), -std::cos(th1) - std::cos(th2);
    v << std::cos(th1) * w1, std::sin(th1) * w1, std::cos(th1) * w1 + std::cos(th2) * w2,
        std::sin(th1) * w1 + std::sin(th2) * w2;
  }
};

}  // namespace mechint::testing
