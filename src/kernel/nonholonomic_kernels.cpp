#include "kernel/nonholonomic_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

namespace mechint::kernel {
namespace {

/// A body with a constant diagonal mass matrix and no potential: L = ½ Σ M_i v_i².
struct Body {
  int n;
  std::array<double, 4> mass;  // diagonal of M
  double a;                    // sleigh: the knife edge's offset; disk: the radius R
};

int diagonal_lagrangian(const void* context, const double*, const double* v, double* value, double* l_q, double* l_v,
                        double* l_qq, double* l_qv, double* l_vv) {
  const Body& b = *static_cast<const Body*>(context);
  const int n = b.n;
  if (value) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += b.mass[i] * v[i] * v[i];
    *value = 0.5 * sum;
  }
  if (l_q) std::fill(l_q, l_q + n, 0.0);
  if (l_v)
    for (int i = 0; i < n; ++i) l_v[i] = b.mass[i] * v[i];
  if (l_qq) std::fill(l_qq, l_qq + n * n, 0.0);
  if (l_qv) std::fill(l_qv, l_qv + n * n, 0.0);
  if (l_vv) {
    std::fill(l_vv, l_vv + n * n, 0.0);
    for (int i = 0; i < n; ++i) l_vv[i * n + i] = b.mass[i];
  }
  return MECHINT_KERNEL_OK;
}

/// A = [−sin θ, cos θ, −a]; (A w)_q = [0, 0, −cos θ w_x − sin θ w_y].
int sleigh_constraint(const void* context, const double* q, const double* w, double* a, double* aw_q) {
  const Body& b = *static_cast<const Body*>(context);
  const double c = std::cos(q[2]), s = std::sin(q[2]);
  if (a) {
    a[0] = -s;
    a[1] = c;
    a[2] = -b.a;
  }
  if (aw_q) {
    aw_q[0] = aw_q[1] = 0.0;
    aw_q[2] = -c * w[0] - s * w[1];
  }
  return MECHINT_KERNEL_OK;
}

/// A = [[1, 0, 0, −R cos θ], [0, 1, 0, −R sin θ]]; (A w)_q has only its θ column: (R sin θ w_φ,
/// −R cos θ w_φ).
int disk_constraint(const void* context, const double* q, const double* w, double* a, double* aw_q) {
  const Body& b = *static_cast<const Body*>(context);
  const double c = std::cos(q[2]), s = std::sin(q[2]), r = b.a;
  if (a) {
    const double rows[8] = {1.0, 0.0, 0.0, -r * c, 0.0, 1.0, 0.0, -r * s};
    std::copy(rows, rows + 8, a);
  }
  if (aw_q) {
    std::fill(aw_q, aw_q + 8, 0.0);
    aw_q[2] = r * s * w[3];
    aw_q[6] = -r * c * w[3];
  }
  return MECHINT_KERNEL_OK;
}

/// ξ = ∂/∂θ.
int disk_heading_symmetry(const void*, int32_t index, const double*, double* xi) {
  if (index != 0) return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  std::fill(xi, xi + 4, 0.0);
  xi[2] = 1.0;
  return MECHINT_KERNEL_OK;
}

KernelModel body_model(std::shared_ptr<Body> body, int num_nonholonomic,
                       int (*constraint)(const void*, const double*, const double*, double*, double*)) {
  mechint_model_kernels k{};
  k.abi_version = MECHINT_KERNEL_ABI_VERSION;
  k.struct_size = sizeof(mechint_model_kernels);
  k.dim = body->n;
  k.context = body.get();
  k.lagrangian = &diagonal_lagrangian;
  k.num_nonholonomic = num_nonholonomic;
  k.nonholonomic = constraint;
  if (body->n == 4) {
    k.num_symmetries = 1;
    k.symmetry = &disk_heading_symmetry;
  }
  return KernelModel(k, std::move(body));
}

}  // namespace

KernelModel chaplygin_sleigh_model(double mass, double inertia, double a) {
  return body_model(std::make_shared<Body>(Body{3, {mass, mass, inertia, 0.0}, a}), 1, &sleigh_constraint);
}

KernelModel rolling_disk_model(double mass, double radius, double inertia, double axle_inertia) {
  return body_model(std::make_shared<Body>(Body{4, {mass, mass, inertia, axle_inertia}, radius}), 2, &disk_constraint);
}

}  // namespace mechint::kernel
