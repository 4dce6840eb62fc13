#pragma once
/// \file
/// A model seen through its derivative kernels (include/mechint/kernel/model_kernels.h): the C table
/// checked once, its calls on Eigen vectors of the model's runtime dimension. The runtime-sized
/// methods of src/kernel/ see a model only through this class, whatever filled the table (hand-derived
/// code, a model file's generated plugin).
///
/// Every evaluation writes into storage its caller sized (`LagrangianValues`, vectors of the
/// dimension): nothing here allocates. Each returns false when the model is not defined at its
/// arguments (MECHINT_KERNEL_OUTSIDE_DOMAIN); the caller decides what that means (a Newton iterate
/// outside the domain is a non-finite residual, a start outside it is refused).

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include <Eigen/Core>

#include "mechint/kernel/model_kernels.h"
#include "mechint/solve/newton_options.hpp"

namespace mechint::kernel {

using Vector = Eigen::VectorXd;
/// The kernels' matrices are row-major; so are those read from them.
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// L(q, v) and its first and second derivatives at one point.
struct LagrangianValues {
  explicit LagrangianValues(int n = 0) : q(n), v(n), qq(n, n), qv(n, n), vv(n, n) {}
  double value = 0.0;
  Vector q, v;           ///< ∂L/∂q, ∂L/∂v
  RowMatrix qq, qv, vv;  ///< ∂²L/∂q², (qv)_ij = ∂²L/∂q_i∂v_j, ∂²L/∂v²
};

class KernelModel {
 public:
  /// Checks the table (ABI version, dimensions, the functions its counts require) and keeps `owner`
  /// alive as long as the model: whatever the functions and their context live in (a loaded
  /// plugin, the parameter values). Throws std::invalid_argument for a table that cannot be used.
  KernelModel(const mechint_model_kernels& kernels, std::shared_ptr<const void> owner);

  /// The table as checked (a member the filler's version did not know reads as zero).
  const mechint_model_kernels& table() const { return kernels_; }
  int dim() const { return kernels_.dim; }
  int num_constraints() const { return kernels_.num_constraints; }
  int num_symmetries() const { return kernels_.num_symmetries; }
  int num_controls() const { return kernels_.num_controls; }
  bool forced() const { return kernels_.has_forces != 0; }
  /// Whether the model declares a time scale s(q) (adapt=sundman).
  bool has_time_scale() const { return kernels_.time_scale != nullptr; }
  int num_nonholonomic() const { return kernels_.num_nonholonomic; }
  /// Walls φ(q) ≥ 0 (the impact driver, kernel/kernel_impact_driver.hpp).
  int num_unilateral() const { return kernels_.num_unilateral; }

  /// ∂L/∂q, ∂L/∂v and the three Hessian blocks, and L itself when `with_value` (a Newton iteration
  /// needs only the derivatives; a kernel skips what it is not asked for).
  bool lagrangian(const Vector& q, const Vector& v, LagrangianValues& out, bool with_value = false) const;
  /// ∂L/∂q, ∂L/∂v and ∂²L/∂q² without the Hessian blocks with a velocity (`out.qv` and `out.vv` are
  /// left as they are): what the Newton Jacobian of a separable model takes, whose L_qv = 0 and
  /// L_vv = M the method keeps (kernel/galerkin_integrator.cpp).
  bool position_hessian(const Vector& q, const Vector& v, LagrangianValues& out) const;
  /// L, ∂L/∂q and ∂L/∂v only (any of the pointers may be null).
  bool gradient(const Vector& q, const Vector& v, double* value, Vector* l_q, Vector* l_v) const;
  /// E = L_v·v − L at (q, v) and the size of its terms, |L_v·v| + |L| (the step check's energy
  /// balance): the model's `energy` kernel when it has one, else energy_from_gradient.
  bool energy(const Vector& q, const Vector& v, double& energy, double& size, Vector& l_v) const;
  /// E = L_v·v − L and |L_v·v| + |L| from `lagrangian`'s value and L_v (`l_v`: workspace of the
  /// dimension) — the arithmetic of the fixed-size integrators' energy (model/lagrangian_calculus.hpp),
  /// which the output rows keep.
  bool energy_from_gradient(const Vector& q, const Vector& v, double& energy, double& size, Vector& l_v) const;
  /// ∂L/∂v and ∂²L/∂v² only: what the inverse Legendre transform's Newton needs (a kernel computes
  /// only the outputs it is asked for).
  bool velocity_derivatives(const Vector& q, const Vector& v, Vector& l_v, RowMatrix& l_vv) const;
  /// ∂L/∂q and the Hessian blocks with a velocity, ∂²L/∂q∂v and ∂²L/∂v², without ∂²L/∂q²: what the
  /// Euler–Lagrange equations L_vv v̇ + L_qvᵀ q̇ − L_q take (the DAE's residual, kernel/kernel_dae.hpp).
  bool velocity_hessians(const Vector& q, const Vector& v, Vector& l_q, RowMatrix& l_qv, RowMatrix& l_vv) const;
  /// g(q) and Dg(q) (k x n; either may be null). Only when num_constraints() > 0.
  bool constraints(const Vector& q, Vector* g, RowMatrix* dg) const;
  /// Whether the table supplies the constraints' curvature (model_kernels.h, constraint_curvature).
  bool has_constraint_curvature() const { return kernels_.num_constraints > 0 && kernels_.constraint_curvature != nullptr; }
  /// Σ_i λ_i ∂²g_i/∂q² (n x n, symmetric) for multipliers λ (k). Only when has_constraint_curvature().
  bool constraint_curvature(const Vector& q, const Vector& lambda, RowMatrix& out) const;
  /// ξ_i(q). Only when num_symmetries() > 0.
  bool symmetry(int i, const Vector& q, Vector& xi) const;
  /// f(q, v, u, t) and its Jacobians (either may be null). Only when forced().
  bool forces(const Vector& q, const Vector& v, const Vector& u, double t, Vector& f, RowMatrix* f_q,
              RowMatrix* f_v) const;

  /// s(q), ∂s/∂q (n) and ∂²s/∂q² (n x n; either may be null). Only when has_time_scale().
  bool time_scale(const Vector& q, double& s, Vector* s_q, RowMatrix* s_qq) const;
  /// A(q) (r x n) of the nonholonomic constraints A(q) v = 0 and ∂(A(q) w)/∂q (r x n; either may be
  /// null). Only when num_nonholonomic() > 0.
  bool nonholonomic(const Vector& q, const Vector& w, RowMatrix* a, RowMatrix* aw_q) const;
  /// φ(q) (w) and Dφ(q) (w x n; either may be null). Only when num_unilateral() > 0.
  bool unilateral(const Vector& q, Vector* phi, RowMatrix* dphi) const;

  /// Whether the model supplies the discrete derivatives of `rule` (a MECHINT_RULE_*) itself
  /// (model_kernels.h, discrete_lagrangian): the methods then take them as they are.
  bool supplies_discrete_rule(int rule) const { return (kernels_.discrete_rules >> rule) & 1u; }
  /// Whether that supplied rule is the model's own discrete Lagrangian, not the rule's quadrature of L
  /// (model_kernels.h, own_discrete_rules: a chart's restricted Ld of 000 eq. 4.9).
  bool supplies_own_discrete_rule(int rule) const {
    return supplies_discrete_rule(rule) && ((kernels_.own_discrete_rules >> rule) & 1u);
  }
  /// D1 Ld, D2 Ld, D12 Ld of a supplied rule (any may be null). Only when supplies_discrete_rule(rule).
  bool discrete_lagrangian(int rule, double h, const Vector& q0, const Vector& q1, Vector* d1, Vector* d2,
                           RowMatrix* d12) const;
  /// f⁻, f⁺ and ∂f⁻/∂q1 (may be null) of a supplied rule's step under the held control u. Only when
  /// supplies_discrete_rule(rule) and forced().
  bool discrete_forces(int rule, double h, const Vector& q0, const Vector& q1, const Vector& u, double t0,
                       Vector& f_minus, Vector& f_plus, RowMatrix* df_minus) const;

  /// Whether the model solves a step of the supplied `rule` itself (model_kernels.h, discrete_step;
  /// unconstrained models).
  bool supplies_discrete_step(int rule) const {
    return supplies_discrete_rule(rule) && kernels_.discrete_step != nullptr && kernels_.num_constraints == 0;
  }
  /// q1 of one step of a supplied rule by the model's own full Newton from the guess in q1 (u: the
  /// held control, null without forces). Only when supplies_discrete_step(rule).
  /// `stats` is written field by field (see the definition). With `p1` not null, a converged step
  /// also writes p1 = D2 Ld + f⁺ at q1 and, for a forced model, the step's f⁻ and f⁺ (model_kernels.h).
  void discrete_step(int rule, double h, const Vector& q0, const Vector& p0, const Vector* u, double t0,
                     const NewtonOptions& options, Vector& q1, NewtonStats& stats, Vector* p1 = nullptr,
                     Vector* f_minus = nullptr, Vector* f_plus = nullptr) const;

  /// Whether the table supplies what optimal control asks for (model_kernels.h: lagrangian_third,
  /// and forces_second for a forced model): kernel/kernel_dmoc.hpp.
  bool supplies_optimal_control_kernels() const {
    return kernels_.lagrangian_third != nullptr && (!forced() || kernels_.forces_second != nullptr);
  }
  /// ∇²_z (∇L(z)·(dq, dv)) at z = (q, v) (2n x 2n, symmetric; `out` is sized here). Only when
  /// supplies_optimal_control_kernels().
  bool lagrangian_third(const Vector& q, const Vector& v, const Vector& dq, const Vector& dv, RowMatrix& out) const;
  /// ∂f/∂u (n x m) and, for weights μ (n), the Hessian over (q, v, u) of μ·f ((2n+m) x (2n+m)); either
  /// output may be null (μ is read only with the Hessian; outputs are sized here). Only when forced()
  /// and supplies_optimal_control_kernels().
  bool forces_second(const Vector& q, const Vector& v, const Vector& u, double t, const Vector* mu, RowMatrix* f_u,
                     RowMatrix* hessian) const;

  /// What a backend knows of the model's structure that the table does not say: the conditions of
  /// the energy–momentum method (kernel/energy_momentum_integrator.hpp). A model file's are read from
  /// its expression trees (model_file/model_structure.hpp, ModelStructure), a built-in's from its type (the
  /// ConstantMassModel concept). Set before the model is shared; all false by default.
  struct Structure {
    bool constant_mass = false;                ///< L = ½ vᵀM v − V(q) with M constant
    bool quadratic_constraints = false;        ///< every g_i of degree ≤ 2 in q (true without constraints)
    bool potential_at_most_quadratic = false;  ///< the midpoint gradient of V is a discrete gradient
  };
  void set_structure(const Structure& structure) { structure_ = structure; }
  const Structure& structure() const { return structure_; }
  /// Whether the energy–momentum method integrates the model (003 §5: constant mass, quadratic
  /// constraints, no forces, no nonholonomic constraints).
  bool energy_momentum_applies() const {
    return structure_.constant_mass && structure_.quadratic_constraints && !forced() && num_nonholonomic() == 0;
  }

  /// The checks of a C++ model's domain that its kernels cannot express (its validate_configuration
  /// and validate_step, integrate/run_loop.hpp: a collision, an encounter a step does not resolve):
  /// they throw DomainError. Set by the AD backend (kernel/model_adapter.hpp) before the model is
  /// shared; the integrators call check_step after every step.
  using StepCheck = std::function<void(const Vector& q_before, const Vector& q, double t)>;
  void set_step_check(StepCheck check) { step_check_ = std::move(check); }
  bool has_step_check() const { return static_cast<bool>(step_check_); }
  void check_step(const Vector& q_before, const Vector& q, double t) const {
    if (step_check_) step_check_(q_before, q, t);
  }

 private:
  mechint_model_kernels kernels_;
  std::shared_ptr<const void> owner_;
  StepCheck step_check_;
  Structure structure_;
};

// The calls of every step, inline: one indirect call each, nothing between it and the method.

inline bool KernelModel::lagrangian(const Vector& q, const Vector& v, LagrangianValues& out, bool with_value) const {
  return kernels_.lagrangian(kernels_.context, q.data(), v.data(), with_value ? &out.value : nullptr, out.q.data(),
                             out.v.data(), out.qq.data(), out.qv.data(), out.vv.data()) == MECHINT_KERNEL_OK;
}

inline bool KernelModel::position_hessian(const Vector& q, const Vector& v, LagrangianValues& out) const {
  return kernels_.lagrangian(kernels_.context, q.data(), v.data(), nullptr, out.q.data(), out.v.data(), out.qq.data(),
                             nullptr, nullptr) == MECHINT_KERNEL_OK;
}

inline bool KernelModel::gradient(const Vector& q, const Vector& v, double* value, Vector* l_q, Vector* l_v) const {
  return kernels_.lagrangian(kernels_.context, q.data(), v.data(), value, l_q ? l_q->data() : nullptr,
                             l_v ? l_v->data() : nullptr, nullptr, nullptr, nullptr) == MECHINT_KERNEL_OK;
}

inline bool KernelModel::energy(const Vector& q, const Vector& v, double& energy, double& size, Vector& l_v) const {
  if (kernels_.energy) return kernels_.energy(kernels_.context, q.data(), v.data(), &energy, &size) == MECHINT_KERNEL_OK;
  return energy_from_gradient(q, v, energy, size, l_v);
}

inline bool KernelModel::energy_from_gradient(const Vector& q, const Vector& v, double& energy, double& size,
                                              Vector& l_v) const {
  double value = 0.0;
  if (!gradient(q, v, &value, nullptr, &l_v)) return false;
  const double kinetic_part = l_v.dot(v);
  energy = kinetic_part - value;
  size = std::abs(kinetic_part) + std::abs(value);
  return true;
}

inline bool KernelModel::discrete_lagrangian(int rule, double h, const Vector& q0, const Vector& q1, Vector* d1,
                                             Vector* d2, RowMatrix* d12) const {
  return kernels_.discrete_lagrangian(kernels_.context, rule, h, q0.data(), q1.data(), d1 ? d1->data() : nullptr,
                                      d2 ? d2->data() : nullptr, d12 ? d12->data() : nullptr) == MECHINT_KERNEL_OK;
}

inline void KernelModel::discrete_step(int rule, double h, const Vector& q0, const Vector& p0, const Vector* u,
                                       double t0, const NewtonOptions& options, Vector& q1, NewtonStats& stats,
                                       Vector* p1, Vector* f_minus, Vector* f_plus) const {
  const mechint_newton_settings settings{options.residual_tolerance, options.step_tolerance, options.max_iterations};
  mechint_newton_report report{};
  kernels_.discrete_step(kernels_.context, rule, h, q0.data(), p0.data(), u ? u->data() : nullptr, t0, &settings,
                         q1.data(), p1 ? p1->data() : nullptr, f_minus ? f_minus->data() : nullptr,
                         f_plus ? f_plus->data() : nullptr, &report);
  // Field by field, each read once: the kernel stored them one by one, and a wide load over two of
  // them (which the compiler otherwise makes of adjacent copies) waits for both stores to retire
  // instead of taking their values from the store buffer — a stall that cost a short model's step
  // about 10 %.
  stats.iterations = report.iterations;
  stats.converged = report.converged != 0;
  stats.jacobian_evaluations = report.jacobian_evaluations;
  stats.residual_norm = report.residual_norm;
  stats.first_update_norm = report.first_update_norm;
  asm("" ::: "memory");
  stats.first_contraction = report.first_contraction;
}

inline bool KernelModel::discrete_forces(int rule, double h, const Vector& q0, const Vector& q1, const Vector& u,
                                         double t0, Vector& f_minus, Vector& f_plus, RowMatrix* df_minus) const {
  return kernels_.discrete_forces(kernels_.context, rule, h, q0.data(), q1.data(), u.data(), t0, f_minus.data(),
                                  f_plus.data(), df_minus ? df_minus->data() : nullptr) == MECHINT_KERNEL_OK;
}

}  // namespace mechint::kernel
