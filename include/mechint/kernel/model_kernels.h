/* The derivative-kernel boundary between models and methods (docs/architecture.md, "Kernels").
 *
 * A model reaches the runtime-sized methods only through this table of C functions on plain
 * `double` arrays: no C++ object, exception or callback crosses it, so a model compiled
 * separately — a model file's plugin, generated C code, a hand-derived model in another
 * language — is loaded by any mechint of the same ABI version. Three backends fill it: hand
 * derived (the pendulum chain, src/kernel/chain_kernels.cpp), generated code (model files), and
 * AD of a C++ model templated on the scalar (src/kernel/model_adapter.hpp).
 *
 * Conventions of every function:
 *   - `context` is the model's own data (its parameter values), passed back unchanged;
 *   - vectors have the lengths named below (n = dim, k = num_constraints, m = num_controls);
 *     matrices are row-major: for an a x b matrix M, M[i*b + j] = M_ij;
 *   - any output pointer may be NULL: that output is not wanted (and need not be computed);
 *   - the return value is MECHINT_KERNEL_OK, or MECHINT_KERNEL_OUTSIDE_DOMAIN when the model is not
 *     defined at the arguments (a declared domain left, a singular potential): the caller stops with
 *     a located message, it never uses the outputs.
 *
 * The table grows only by appending members; `struct_size` says how much of it the filler knows
 * (a filler built against an earlier header of the same version is read with the members it does
 * not know as zero: none supplied), `abi_version` changes only when a member's meaning changes. */
#ifndef MECHINT_KERNEL_MODEL_KERNELS_H
#define MECHINT_KERNEL_MODEL_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MECHINT_KERNEL_ABI_VERSION 1
#define MECHINT_KERNEL_OK 0
#define MECHINT_KERNEL_OUTSIDE_DOMAIN 1

/* The settings of a Newton solve a model makes itself (`discrete_step`) and what it reports: the
 * solver of solve/newton.hpp, full Newton. */
typedef struct mechint_newton_settings {
  double residual_tolerance; /* converged when |R|inf <= residual_tolerance (1 + |h p0|inf) ... */
  double step_tolerance;     /* ... or when the last update |dq|inf <= step_tolerance (1 + |q1|inf) */
  int32_t max_iterations;    /* updates at most */
} mechint_newton_settings;

typedef struct mechint_newton_report {
  int32_t iterations;           /* updates made */
  int32_t converged;            /* 1: converged; 0: not (the limit, or an iterate where the model is not
                                   defined or the residual not finite) */
  int32_t jacobian_evaluations; /* Jacobians factored */
  double residual_norm;         /* |R|inf at the last evaluation */
  double first_update_norm;     /* |dq_0|inf */
  double first_contraction;     /* |dq_1|inf / |dq_0|inf (0 before a second update) */
} mechint_newton_report;

typedef struct mechint_model_kernels {
  uint32_t abi_version; /* MECHINT_KERNEL_ABI_VERSION of the filler */
  uint32_t struct_size; /* sizeof(mechint_model_kernels) of the filler */

  int32_t dim;             /* n: coordinates q (and velocities v) */
  int32_t num_constraints; /* k: holonomic constraints g(q) = 0 */
  int32_t num_symmetries;  /* symmetry generators xi(q) of L and g */
  int32_t num_controls;    /* m: control inputs u of the forces (0: none) */
  int32_t has_forces;      /* 1: `forces` is set (generalized forces, dissipation included) */

  const void* context;

  /* L(q, v) and its derivatives: value, L_q (n), L_v (n), L_qq (n x n), L_qv (n x n, [i*n+j] =
   * d2L/dq_i dv_j), L_vv (n x n). Required. */
  int (*lagrangian)(const void* context, const double* q, const double* v, double* value, double* l_q,
                    double* l_v, double* l_qq, double* l_qv, double* l_vv);

  /* g(q) (k) and Dg(q) (k x n). Required when k > 0. */
  int (*constraints)(const void* context, const double* q, double* g, double* dg);

  /* The generator xi_i(q) (n) of symmetry `index` in [0, num_symmetries). Required when
   * num_symmetries > 0. */
  int (*symmetry)(const void* context, int32_t index, const double* q, double* xi);

  /* The total generalized force f(q, v, u, t) (n), the Rayleigh dissipation's -dR/dv included, and
   * its Jacobians f_q (n x n) and f_v (n x n), each null when not asked for (either may be asked
   * alone). Required when has_forces. */
  int (*forces)(const void* context, const double* q, const double* v, const double* u, double t, double* f,
                double* f_q, double* f_v);

  /* The time scale s(q) > 0 of a Sundman transformation dt = h s(q) (DESIGN §10, adapt=sundman), its
   * gradient s_q (n) and Hessian s_qq (n x n). Optional: NULL when the model declares none. */
  int (*time_scale)(const void* context, const double* q, double* s, double* s_q, double* s_qq);

  /* r = num_nonholonomic constraints linear in the velocities, A(q) v = 0 (DESIGN §10): A (r x n) and,
   * for a given w (n), the derivative of A(q) w in q, (A w)_q (r x n). Required when r > 0. */
  int32_t num_nonholonomic;
  int (*nonholonomic)(const void* context, const double* q, const double* w, double* a, double* aw_q);

  /* The curvature of the holonomic constraints contracted with multipliers lambda (k): the symmetric
   * n x n matrix d(Dg(q)^T lambda)/dq = sum_i lambda_i D^2 g_i(q). Optional (NULL: not supplied), and
   * only when k > 0. With it a constrained Lobatto step's Newton Jacobian is exact (quadratic
   * convergence) and the step's tangent map (chaos indicators) is defined; lambda = e_i gives the
   * Hessian of g_i alone. */
  int (*constraint_curvature)(const void* context, const double* q, const double* lambda, double* h);

  /* w = num_unilateral walls phi(q) >= 0 (impacts, 004 sec. II-A): phi (w) and its Jacobian Dphi
   * (w x n, row c the gradient of phi_c). Required when w > 0. */
  int32_t num_unilateral;
  int (*unilateral)(const void* context, const double* q, double* phi, double* dphi);

  /* A model that supplies the discrete derivatives of the variational rules itself (a hand-derived
   * or AD discrete Lagrangian, a recursive multibody algorithm) instead of having the methods
   * compose them from L's derivatives at the rule's quadrature points. `discrete_rules` is a bit set
   * of the MECHINT_RULE_* it supplies (0: none, and both functions may be NULL). For a supplied rule:
   *   discrete_lagrangian: D1 Ld(q0, q1) (n), D2 Ld(q0, q1) (n) and D12 Ld (n x n, [i*n+j] =
   *     d2 Ld/dq0_i dq1_j), Ld including the factor h (docs/conventions.md);
   *   discrete_forces (required when has_forces): the left and right discrete forces f-, f+ (n) of
   *     the step from (q0, t0) to q1 under the control u held over it, and df-/dq1 (n x n).
   * Optional; the rules are those of DESIGN §1 (000 eqs. 4.1 and 4.20, 004 eq. 16). */
  uint32_t discrete_rules;
  int (*discrete_lagrangian)(const void* context, int32_t rule, double h, const double* q0, const double* q1,
                             double* d1, double* d2, double* d12);
  int (*discrete_forces)(const void* context, int32_t rule, double h, const double* q0, const double* q1,
                         const double* u, double t0, double* f_minus, double* f_plus, double* df_minus);

  /* What optimal control (DMOC, DESIGN §7) asks for beyond the above: the derivatives of the
   * Hessian of its Lagrangian. Optional (NULL: not supplied, and `mechint optimize` refuses the model).
   *   lagrangian_third: for a direction (dq, dv) (n each), the Hessian over z = (q, v) of
   *     ∇L(z)·(dq, dv): the symmetric 2n x 2n matrix sum_c d3L/dz_a dz_b dz_c d_c, rows and columns
   *     ordered q then v;
   *   forces_second (required with lagrangian_third when has_forces): f_u = df/du (n x m) and, for
   *     weights mu (n), the Hessian over s = (q, v, u) of mu·f(q, v, u, t): the symmetric
   *     (2n+m) x (2n+m) matrix, ordered q, v, u. Either output may be NULL (mu only with the Hessian). */
  int (*lagrangian_third)(const void* context, const double* q, const double* v, const double* dq, const double* dv,
                          double* h);
  int (*forces_second)(const void* context, const double* q, const double* v, const double* u, double t,
                       const double* mu, double* f_u, double* hessian);

  /* The rules among `discrete_rules` whose Ld is the model's own discrete Lagrangian rather than the
   * rule's quadrature of L (a closed form in other variables, as the rigid body's 000 eq. 5.8, or a
   * chart's restricted Ld(psi(q0), psi(q1)) of 000 eq. 4.9). The explicit Stormer-Verlet steps that
   * replace the trapezoid rule's Newton on a separable L are a quadrature of L, so they are not taken
   * for a trapezoid rule named here. Optional (0: every supplied rule is its quadrature of L). */
  uint32_t own_discrete_rules;

  /* The energy E = L_v(q, v)·v - L(q, v) and the size of its terms, |L_v·v| + |L| (the step check's
   * energy balance asks for both at every step). Optional (NULL: computed from `lagrangian`'s value
   * and L_v); a filler supplies it when it has them for less, as one directional derivative of L
   * along v does. */
  int (*energy)(const void* context, const double* q, const double* v, double* energy, double* size);

  /* One step of a supplied rule (among `discrete_rules`) of an unconstrained model (k = 0), solved by
   * the model itself: q1 such that R = h (p0 + D1 Ld(q0, q1) + f-(q0, q1)) = 0 (000 eqs. 4.4-4.6 in
   * momentum form; f- of the step from (q0, t0) under the control u held over it, u and t0 ignored
   * without forces), by full Newton on J = h (D12 Ld + df-/dq1) from the guess in q1, with the
   * settings' tolerances. On return q1 is the last iterate and `report` says how the solve ended: an
   * iterate where the model is not defined stops it unconverged, as a non-finite residual does. The
   * same arithmetic as the methods' solve of the same equations from `discrete_lagrangian` and
   * `discrete_forces`; a filler supplies it when it solves them for less (the AD backend's Newton at
   * the model's size, with the discrete derivatives inlined). Optional (NULL: the methods solve).
   *
   * When p1 is not NULL, a solve that converged to a finite q1 also gives the end of the step at that
   * q1, as the methods would compute it there: p1 = D2 Ld(q0, q1) + f+(q0, q1) (000 eq. 4.6, the
   * momentum of the next step) and, for a forced model, the step's f- and f+ in f_minus and f_plus
   * (then not NULL). Where the model is not defined at the end, p1 and f_minus are NaN. With p1
   * NULL, f_minus and f_plus are not written. */
  int (*discrete_step)(const void* context, int32_t rule, double h, const double* q0, const double* p0,
                       const double* u, double t0, const mechint_newton_settings* settings, double* q1,
                       double* p1, double* f_minus, double* f_plus, mechint_newton_report* report);

  /* The model's declared domain (DESIGN §6, a model file's `domain`): the values d_i(q) of its
   * num_domain inequalities d_i(q) > 0, every one of them, whether q is inside or not, so that a
   * caller can name the one left and its value (a model file's step check tests them at the end and
   * the midpoint of every step taken). Returns MECHINT_KERNEL_OK with every value written; anything
   * else gives no values, and the caller counts q as outside. The other kernels refuse a q outside
   * the domain as before. Optional (num_domain 0, NULL: none declared or not supplied). */
  int32_t num_domain;
  int (*domain)(const void* context, const double* q, double* values);

  /* One explicit Stormer-Verlet step: the trapezoid rule's DEL equations in closed form for a separable
   * L = 1/2 v^T M v + b.v - V(q), M and b constant (004 eq. 16 with L_qv = 0 and L_vv = M), which the
   * caller has found L to be and passes M^-1 and b of, in the form `mass_form` (MECHINT_MASS_* below).
   * With f(q) = L_q(q, .) and f0 = f(q0) given:
   *     v = M^-1 (p0 + h/2 f0 - b),   q1 = q0 + h v,   f1 = f(q1),   p1 = p0 + h/2 f0 + h/2 f1.
   * Taken on the model's side so that the step's chain of dependent operations stays in registers from
   * q0 to p1 (between two kernel calls each value would go through memory: docs/performance-history.md). Writes
   * q1, v, f1 and p1 (n each; q1 may be q0 and p1 may be p0) only when the model is defined at q1 and
   * f1 is finite; otherwise writes nothing and returns MECHINT_KERNEL_OUTSIDE_DOMAIN. The same
   * arithmetic, operation for operation, as the methods' own step from `lagrangian`
   * (src/kernel/separable_arithmetic.hpp). Optional (NULL: the methods take the step). */
  int (*separable_step)(const void* context, int32_t mass_form, const double* inverse_mass, const double* linear,
                        double h, const double* q0, const double* p0, const double* f0, double* q1, double* v,
                        double* f1, double* p1);
} mechint_model_kernels;

/* How `separable_step` is given M^-1 and b: */
#define MECHINT_MASS_FULL 0     /* inverse_mass: M^-1 (n x n); linear: b (n) */
#define MECHINT_MASS_DIAGONAL 1 /* M diagonal; inverse_mass: the diagonal of M^-1 (n); linear: b (n) */
#define MECHINT_MASS_UNIT 2     /* M = I and b = 0; inverse_mass and linear are not read (may be NULL) */

/* The rules of `discrete_lagrangian`: Ld = h L((q0+q1)/2, (q1-q0)/h), h/2 [L(q0, v) + L(q1, v)] and
 * h L(q1, (q1-q0)/h) with v = (q1-q0)/h; bit (1u << rule) of `discrete_rules`. */
#define MECHINT_RULE_MIDPOINT 0
#define MECHINT_RULE_TRAPEZOID 1
#define MECHINT_RULE_FIRST_ORDER 2

/* What a model plugin exports: fills `out` for parameter values `parameters` (the plugin's
 * declared order, `num_parameters` of them; the plugin keeps the pointer as its context, so the
 * array must outlive the kernels). Returns MECHINT_KERNEL_OK, or non-zero when `abi_version` is not
 * one it can fill. */
typedef int (*mechint_fill_kernels_fn)(uint32_t abi_version, const double* parameters, int32_t num_parameters,
                                       mechint_model_kernels* out);
#define MECHINT_FILL_KERNELS_SYMBOL "mechint_fill_kernels"

#ifdef __cplusplus
}
#endif

#endif /* MECHINT_KERNEL_MODEL_KERNELS_H */
