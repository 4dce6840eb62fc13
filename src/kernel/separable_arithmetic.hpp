#pragma once
/// \file
/// The arithmetic of one explicit Störmer–Verlet step of a separable L = ½ vᵀM v + b·v − V(q) (the
/// trapezoid rule's DEL equations in closed form, 004 eq. 16 with L_qv = 0, L_vv = M), at a size fixed
/// at compile time or at a runtime one. Both sides of the kernel boundary take the step with it: the methods
/// (kernel/separable.hpp: between their drift and kick they ask the model for f(q1)) and a
/// model that takes the whole step itself (model_kernels.h, separable_step; kernel/model_adapter.txx),
/// so the two give the same numbers bit for bit.

#include <cstddef>
#include <cstdint>

#include <Eigen/Core>

#include "mechint/kernel/model_kernels.h"

namespace mechint::kernel {

/// M⁻¹ and b as the step applies them (model_kernels.h, MECHINT_MASS_*): the full M⁻¹ (n x n,
/// row-major), the diagonal of M⁻¹ (n) when M is diagonal, or neither when M = I and b = 0.
struct SeparableForm {
  int32_t mass_form = MECHINT_MASS_FULL;
  const double* inverse_mass = nullptr;
  const double* linear = nullptr;
};

/// mv = p0 + h/2 f0 − b and v = M⁻¹ mv. With M diagonal v_i = (M⁻¹)_ii mv_i, which the full product
/// gives too (its other terms are zeros added); with M = I and b = 0, v = mv (x − 0 and 1·x are x):
/// the short forms are operations fewer on the step's chain, not other numbers. At N = Dynamic `mv`
/// and `v` are sized by the caller (nothing allocates).
template <int N>
void separable_velocity(const SeparableForm& form, const Eigen::Matrix<double, N, 1>& p0,
                        const Eigen::Matrix<double, N, 1>& f0, double h, Eigen::Matrix<double, N, 1>& mv,
                        Eigen::Matrix<double, N, 1>& v) {
  using V = Eigen::Matrix<double, N, 1>;
  const int n = static_cast<int>(p0.size());
  if (form.mass_form == MECHINT_MASS_UNIT) {
    mv = p0 + (0.5 * h) * f0;
    v = mv;
    return;
  }
  mv = p0 + (0.5 * h) * f0 - Eigen::Map<const V>(form.linear, n);
  if (form.mass_form == MECHINT_MASS_DIAGONAL) {
    v = Eigen::Map<const V>(form.inverse_mass, n).cwiseProduct(mv);
    return;
  }
  // v_i = Σ_j (M⁻¹)_ij mv_j summed in the order of j whatever N is: Eigen's products sum in an order
  // that depends on whether the size is known at compile time, and the model's step (at its size) must
  // give the numbers of the methods' (at theirs).
  for (int i = 0; i < n; ++i) {
    const double* row = form.inverse_mass + static_cast<std::ptrdiff_t>(i) * n;
    double sum = row[0] * mv[0];
    for (int j = 1; j < n; ++j) sum += row[j] * mv[j];
    v[i] = sum;
  }
}

/// p1 = p0 + h/2 f0 + h/2 f1 from p = p0: the two half kicks added one after the other (an Eigen
/// vector or map of any size).
template <class P, class F0, class F1>
void add_half_kicks(P&& p, const F0& f0, const F1& f1, double h) {
  p += (0.5 * h) * f0;
  p += (0.5 * h) * f1;
}

}  // namespace mechint::kernel
