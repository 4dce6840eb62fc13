#pragma once
/// \file
/// The definitions of kernel::ModelAdapter (kernel/model_adapter.hpp): the AD kernels of a C++ model
/// templated on the scalar. Included where a model's kernels are instantiated, once per model type:
/// each built-in system's source instantiates its own with MECHINT_INSTANTIATE_MODEL_KERNELS (below),
/// and every other user of those kernels (experiments, tests, benchmarks, the Python module) calls
/// them through model_adapter.hpp alone, compiling none of this again. A model of one's own (a test's,
/// a library user's) includes this file and gets its kernels instantiated where it calls them; if it
/// also runs built-ins, it includes kernel/builtin_model_kernels.hpp instead, which includes this file
/// and declares the built-ins' kernels.
///
/// L's gradient and Hessian come from the model's calculus (model/lagrangian_calculus.hpp: its
/// hand-written derivatives, or one second-order jet over (q, v)), or, for a model that declares
/// L = ½ q̇ᵀ M q̇ − V(q) (a constant mass matrix and a potential), from M and a jet over q of V alone;
/// g and Dg from one jet over q, the forces' Jacobians from one jet over (q, v), walls and their
/// gradients from one jet over q. The kernels never throw: a model's DomainError or a non-finite
/// value is MECHINT_KERNEL_OUTSIDE_DOMAIN.

#include <memory>
#include <type_traits>

#include "kernel/model_adapter.hpp"
#include "kernel/separable_arithmetic.hpp"
#include "mechint/discrete/del_derivatives.hpp"
#include "mechint/discrete/discrete_forces.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/model/constraint_derivatives.hpp"
#include "mechint/model/forces.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/model/unilateral.hpp"
#include "mechint/optimal/block_derivatives.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

/// The kernel functions of a model type and the table that points to them.
template <LagrangianModel M>
class ModelKernelTable {
 public:
  static constexpr int n = M::kDim;
  static constexpr int k = M::kNumConstraints;
  static constexpr int m = kModelNumControls<M>;

  static void supply_discrete_rules(mechint_model_kernels& t) {
    t.discrete_rules = (1u << MECHINT_RULE_MIDPOINT) | (1u << MECHINT_RULE_TRAPEZOID) | (1u << MECHINT_RULE_FIRST_ORDER);
    t.own_discrete_rules = kOwnRules;
    t.discrete_lagrangian = &discrete_lagrangian;
    if constexpr (ForcedModel<M>) t.discrete_forces = &discrete_forces;
    if constexpr (k == 0) t.discrete_step = &discrete_step;
  }

  /// The table of `model`; `complete` adds the members one factory supplies beyond the others'.
  template <class Complete>
  static std::shared_ptr<const KernelModel> make(M model, bool with_walls, Complete complete) {
    auto owner = std::make_shared<const Context>(std::move(model));
    mechint_model_kernels t{};
    t.abi_version = MECHINT_KERNEL_ABI_VERSION;
    t.struct_size = sizeof(mechint_model_kernels);
    t.dim = n;
    t.num_constraints = k;
    t.num_symmetries = M::kNumSymmetries;
    t.num_controls = m;
    t.has_forces = ForcedModel<M> ? 1 : 0;
    t.context = owner.get();
    t.lagrangian = &lagrangian;
    t.energy = &energy;
    if constexpr (k > 0) t.constraints = &constraints, t.constraint_curvature = &constraint_curvature;
    if constexpr (M::kNumSymmetries > 0) t.symmetry = &symmetry;
    if constexpr (ForcedModel<M>) t.forces = &forces;
    if constexpr (kHasTimeScale) t.time_scale = &time_scale;
    if constexpr (k == 0 && !ForcedModel<M>) t.separable_step = &separable_step;
    if constexpr (HasUnilateralConstraints<M>)
      if (with_walls) t.num_unilateral = M::kNumUnilateral, t.unilateral = &unilateral;
    // Optimal control's kernels, for the models it applies to (controls, no holonomic constraints):
    // their nested AD is compiled for no other model.
    if constexpr (kOptimalControl) t.lagrangian_third = &lagrangian_third, t.forces_second = &forces_second;
    complete(t);
    auto kernel_model = std::make_shared<KernelModel>(t, owner);
    // A model that declares its constant mass matrix and potential declares the energy–momentum
    // method's conditions (src/kernel/energy_momentum_integrator.hpp).
    if constexpr (kConstantMass) {
      constexpr bool quadratic_potential = [] {
        if constexpr (requires { M::kPotentialAtMostQuadratic; }) return static_cast<bool>(M::kPotentialAtMostQuadratic);
        return false;
      }();
      kernel_model->set_structure(
          {.constant_mass = true, .quadratic_constraints = true, .potential_at_most_quadratic = quadratic_potential});
    }
    constexpr bool checks_configurations = requires(const M& x, const VecD<n>& q) { x.validate_configuration(q, 0.0); };
    constexpr bool checks_steps = requires(const M& x, const VecD<n>& q) { x.validate_step(q, q, 0.0); };
    if constexpr (checks_configurations || checks_steps) {
      kernel_model->set_step_check([owner](const Vector& q_before, const Vector& q, double t) {
        const VecD<n> a = q_before, b = q;  // fixed-size copies on the stack
        if constexpr (checks_configurations) owner->model.validate_configuration(b, t);
        if constexpr (checks_steps) owner->model.validate_step(a, b, t);
      });
    }
    return kernel_model;
  }

  /// A row-major r x c matrix type (a single column is stored the same either way; Eigen wants it
  /// column-major).
  template <int r, int c>
  using RowMajorMatrix = Eigen::Matrix<double, r, c, (c == 1 && r != 1) ? Eigen::ColMajor : Eigen::RowMajor>;

  static constexpr bool kHasTimeScale = requires(const M& x, const VecD<n>& q) { x.time_scale(q); };
  /// L = ½ q̇ᵀ M q̇ − V(q) with M constant: what a model declares by its mass_matrix() and
  /// potential() (the energy–momentum method's structure, kernel/energy_momentum_integrator.hpp).
  static constexpr bool kConstantMass = requires(const M& x, const VecD<n>& q) {
    x.mass_matrix();
    x.template potential<double>(q);
  };

  /// Whether DMOC applies to the model (kernel/kernel_dmoc.hpp): forces with controls, no holonomic
  /// constraints.
  static constexpr bool kOptimalControl = [] {
    if constexpr (ForcedModel<M>) return m > 0 && k == 0;
    return false;
  }();

  /// The discrete system of `Rule` on the model, as the fixed-size variational method builds it.
  template <class Rule>
  using DiscreteOf = typename DiscreteSystemFor<M, Rule>::type;
  /// The rules whose discrete system is the model's own (DiscreteSystemFor specialised: the rigid
  /// body's 000 eq. 5.8, a chart's restricted Ld), not the rule's quadrature of L.
  static constexpr uint32_t kOwnRules =
      (std::is_same_v<DiscreteOf<MidpointRule>, DiscreteSystem<M, MidpointRule>> ? 0u : 1u << MECHINT_RULE_MIDPOINT) |
      (std::is_same_v<DiscreteOf<TrapezoidRule>, DiscreteSystem<M, TrapezoidRule>> ? 0u : 1u << MECHINT_RULE_TRAPEZOID) |
      (std::is_same_v<DiscreteOf<FirstOrderRule>, DiscreteSystem<M, FirstOrderRule>> ? 0u
                                                                                    : 1u << MECHINT_RULE_FIRST_ORDER);

  /// What the table's context points to: the model and its discrete systems, built once (a discrete
  /// system holds its own copy of the model; building one in every call of a step's kernels cost a
  /// copy of the model each time).
  struct Context {
    explicit Context(M m) : model(std::move(m)), midpoint(model), trapezoid(model), first_order(model) {}
    M model;
    DiscreteOf<MidpointRule> midpoint;
    DiscreteOf<TrapezoidRule> trapezoid;
    DiscreteOf<FirstOrderRule> first_order;
  };
  static const M& model_of(const void* context) { return static_cast<const Context*>(context)->model; }
  template <class Rule>
  static const DiscreteOf<Rule>& discrete_of(const void* context) {
    const Context& c = *static_cast<const Context*>(context);
    if constexpr (std::is_same_v<Rule, MidpointRule>) return c.midpoint;
    else if constexpr (std::is_same_v<Rule, TrapezoidRule>) return c.trapezoid;
    else return c.first_order;
  }
  static VecD<n> vec(const double* x) { return Eigen::Map<const VecD<n>>(x); }

  template <class F>
  static int guarded(F&& f) {
    try {
      return f() ? MECHINT_KERNEL_OK : MECHINT_KERNEL_OUTSIDE_DOMAIN;
    } catch (const std::exception&) {  // a model's DomainError: not defined here
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  static int lagrangian(const void* context, const double* q, const double* v, double* value, double* l_q,
                        double* l_v, double* l_qq, double* l_qv, double* l_vv) {
    return guarded([&] {
      const M& model = model_of(context);
      const VecD<n> qv = vec(q), vv = vec(v);
      bool finite = true;
      if (value) {
        *value = model.template lagrangian<double>(qv, vv);
        finite = std::isfinite(*value);
      }
      if constexpr (kConstantMass) return constant_mass_derivatives(model, qv, vv, l_q, l_v, l_qq, l_qv, l_vv) && finite;
      if constexpr (!HasLagrangianDerivatives<M>) {
        if (l_vv && !l_q && !l_qq && !l_qv) return velocity_derivatives(model, qv, vv, l_v, l_vv) && finite;
        // The blocks with a velocity (the Euler–Lagrange equations' L_q, L_qv, L_vv) without L_qq:
        // nested first-order AD, inner over (q, v), outer over v (model/lagrangian_calculus.hpp).
        if (l_qv && l_vv && !l_v && !l_qq) {
          VecD<n> gradient;
          Mat<n, n> mixed, velocity;
          lagrangian_velocity_hessians(model, qv, vv, gradient, mixed, velocity);
          copy(gradient, l_q), copy_matrix(mixed, l_qv), copy_matrix(velocity, l_vv);
          return finite && gradient.allFinite() && mixed.allFinite() && velocity.allFinite();
        }
        if (l_qq && !l_qv && !l_vv) return position_hessian(model, qv, vv, l_q, l_v, l_qq) && finite;
      }
      if (l_qq || l_qv || l_vv) {
        const LagrangianDerivatives<n> d = lagrangian_second_derivatives(model, qv, vv);
        copy(d.q, l_q), copy(d.v, l_v), copy_matrix(d.qq, l_qq), copy_matrix(d.qv, l_qv), copy_matrix(d.vv, l_vv);
        return finite && d.q.allFinite() && d.v.allFinite() && d.qq.allFinite() && d.qv.allFinite() && d.vv.allFinite();
      }
      if (l_q && l_v) {
        constexpr int w = 2 * n;
        Vec<Jet<w>, n> qj, vj;
        for (int i = 0; i < n; ++i) qj[i] = Jet<w>(qv[i], i), vj[i] = Jet<w>(vv[i], n + i);
        const Jet<w> l = model.template lagrangian<Jet<w>>(qj, vj);
        VecD<n> gq = l.v.template head<n>(), gv = l.v.template tail<n>();
        copy(gq, l_q), copy(gv, l_v);
        return finite && gq.allFinite() && gv.allFinite();
      }
      if (l_q && !l_v) {
        VecD<n> g;
        const bool gradient_finite = position_gradient(model, qv, vv, g);
        copy(g, l_q);
        return finite && gradient_finite;
      }
      // One block of the gradient: a jet over its n variables only, the others constant (the
      // energy of the step check and of every output row asks for L_v alone).
      if (l_v) {
        Vec<Jet<n>, n> qj, vj;
        for (int i = 0; i < n; ++i) qj[i] = Jet<n>(qv[i]), vj[i] = Jet<n>(vv[i], i);
        const VecD<n> g = model.template lagrangian<Jet<n>>(qj, vj).v;
        copy(g, l_v);
        return finite && g.allFinite();
      }
      return finite;
    });
  }

  /// E = L_v·v − L and |L_v·v| + |L| from one directional derivative of L along v (a jet of one
  /// variable: about two evaluations of L), energy_and_size of model/lagrangian_calculus.hpp.
  static int energy(const void* context, const double* q, const double* v, double* e, double* size) {
    return guarded([&] {
      const auto [value, terms] = energy_and_size(model_of(context), vec(q), vec(v));
      *e = value, *size = terms;
      return std::isfinite(value) && std::isfinite(terms);
    });
  }

  /// The derivatives of L = ½ vᵀ M v − V(q): L_q = −∇V and L_qq = −∇²V from a jet over q alone (a
  /// second-order one when a Hessian block is asked for), L_v = M v, L_qv = 0, L_vv = M. The same
  /// blocks as one second-order jet over (q, v) gives, for the arithmetic of a jet over n variables
  /// instead of 2n (a quarter of the Hessian's entries): a constrained model's Newton step and the
  /// inverse Legendre transform of its output rows are mostly this evaluation.
  static bool constant_mass_derivatives(const M& model, const VecD<n>& q, const VecD<n>& v, double* l_q, double* l_v,
                                        double* l_qq, double* l_qv, double* l_vv) {
    const Mat<n, n> mass = model.mass_matrix();
    bool finite = mass.allFinite();
    if (l_qv) Eigen::Map<RowMajorMatrix<n, n>>{l_qv}.setZero();
    copy_matrix(mass, l_vv);
    if (l_qq) {
      using J = SecondOrderJet<n>;
      const J potential = second_order_expansion<n>([&](const Vec<J, n>& x) { return model.template potential<J>(x); }, q);
      const VecD<n> force = -gradient_of(potential);
      const Mat<n, n> stiffness = -hessian_of(potential);
      copy(force, l_q), copy_matrix(stiffness, l_qq);
      finite = finite && force.allFinite() && stiffness.allFinite();
    } else if (l_q) {
      VecD<n> force;
      finite = position_gradient(model, q, v, force) && finite;
      copy(force, l_q);
    }
    if (l_v) {
      const VecD<n> momentum = mass * v;
      copy(momentum, l_v);
      finite = finite && momentum.allFinite();
    }
    return finite;
  }

  /// L_q, L_v and L_qq without the Hessian blocks with a velocity (what the Newton Jacobian of a
  /// separable model asks for: its L_qv = 0 and L_vv = M are kept by the method,
  /// kernel/galerkin_integrator.cpp): one evaluation on a jet over (q, v) that keeps the Hessian
  /// over q only (core/second_order_jet.hpp) — the numbers of the full jet, for 1 + 2n + n(n+1)/2
  /// entries instead of 1 + 2n + n(2n+1).
  static bool position_hessian(const M& model, const VecD<n>& q, const VecD<n>& v, double* l_q, double* l_v,
                               double* l_qq) {
    constexpr int w = 2 * n;
    using S = SecondOrderJet<w, n>;
    VecD<w> x;  // fixed-size halves, as in model/lagrangian_calculus.hpp (-Warray-bounds at n = 1)
    x.template head<n>() = q;
    x.template tail<n>() = v;
    const S l = second_order_expansion<w, n>(
        [&](const Vec<S, w>& y) {
          const Vec<S, n> qs = y.template head<n>(), vs = y.template tail<n>();
          return model.template lagrangian<S>(qs, vs);
        },
        x);
    const VecD<w> gradient = gradient_of(l);
    const Mat<n, n> hessian = hessian_of(l);
    const VecD<n> gq = gradient.template head<n>(), gv = gradient.template tail<n>();
    copy(gq, l_q), copy(gv, l_v), copy_matrix(hessian, l_qq);
    return gradient.allFinite() && hessian.allFinite();
  }

  /// L_q alone into `out`, finite or not (the return value says): −∇V from a jet over q of V for a
  /// model of constant mass, else a jet over q of L with v held constant.
  static bool position_gradient(const M& model, const VecD<n>& q, const VecD<n>& v, VecD<n>& out) {
    Vec<Jet<n>, n> qj;
    for (int i = 0; i < n; ++i) qj[i] = Jet<n>(q[i], i);
    if constexpr (kConstantMass) {
      (void)v;
      out = -model.template potential<Jet<n>>(qj).v;
      return model.mass_matrix().allFinite() && out.allFinite();
    } else {
      Vec<Jet<n>, n> vj;
      for (int i = 0; i < n; ++i) vj[i] = Jet<n>(v[i]);
      out = model.template lagrangian<Jet<n>>(qj, vj).v;
      return out.allFinite();
    }
  }

  /// One explicit Störmer–Verlet step on the model's side (model_kernels.h, separable_step): the
  /// values stay in registers from q0 to p1 and are stored once, at the end, and only when f1 is
  /// finite; the arithmetic of the methods' drift and kick (kernel/separable_arithmetic.hpp) around
  /// `lagrangian`'s L_q.
  static int separable_step(const void* context, int32_t mass_form, const double* inverse_mass, const double* linear,
                            double h, const double* q0, const double* p0, const double* f0, double* q1, double* v,
                            double* f1, double* p1) {
    return guarded([&] {
      const VecD<n> force0 = vec(f0);
      VecD<n> mv, velocity, force1;
      separable_velocity<n>(SeparableForm{mass_form, inverse_mass, linear}, vec(p0), force0, h, mv, velocity);
      const VecD<n> q = vec(q0) + h * velocity;
      if (!position_gradient(model_of(context), q, velocity, force1)) return false;
      VecD<n> p = vec(p0);
      add_half_kicks(p, force0, force1, h);
      Eigen::Map<VecD<n>>{q1} = q, Eigen::Map<VecD<n>>{v} = velocity, Eigen::Map<VecD<n>>{f1} = force1;
      Eigen::Map<VecD<n>>{p1} = p;
      return true;
    });
  }

  /// L_v and L_vv alone, from a second-order jet over v with q held constant (n variables instead of
  /// 2n): the inverse Legendre transform of every output row asks for nothing else.
  static bool velocity_derivatives(const M& model, const VecD<n>& q, const VecD<n>& v, double* l_v, double* l_vv) {
    using J = SecondOrderJet<n>;
    Vec<J, n> q_constant;
    for (int i = 0; i < n; ++i) q_constant[i] = J(q[i]);
    const J l = second_order_expansion<n>([&](const Vec<J, n>& y) { return model.template lagrangian<J>(q_constant, y); }, v);
    const VecD<n> momentum = gradient_of(l);
    const Mat<n, n> hessian = hessian_of(l);
    copy(momentum, l_v), copy_matrix(hessian, l_vv);
    return momentum.allFinite() && hessian.allFinite();
  }

  static int constraints(const void* context, const double* q, double* g, double* dg) {
    return guarded([&] {
      VecD<k> gv;
      Mat<k, n> jac;
      constraints_and_jacobian(model_of(context), vec(q), gv, jac);
      if (g) Eigen::Map<VecD<k>>{g} = gv;
      if (dg) Eigen::Map<RowMajorMatrix<k, n>>{dg} = jac;
      return gv.allFinite() && jac.allFinite();
    });
  }

  static int constraint_curvature(const void* context, const double* q, const double* lambda, double* h) {
    return guarded([&] {
      const Mat<n, n> c =
          constraint_hessian_contracted(model_of(context), vec(q), VecD<k>(Eigen::Map<const VecD<k>>(lambda)));
      Eigen::Map<RowMajorMatrix<n, n>>{h} = c;
      return c.allFinite();
    });
  }

  static int symmetry(const void* context, int32_t index, const double* q, double* xi) {
    return guarded([&] {
      const VecD<n> x = model_symmetry_generator(model_of(context), index, vec(q));
      Eigen::Map<VecD<n>>{xi} = x;
      return x.allFinite();
    });
  }

  /// f(q, v, u, t), and its Jacobians when asked for: in double when neither is (an explicit
  /// Runge–Kutta stage, the rules' forces at q1), one jet over q or over v for one of them, one jet
  /// over (q, v) for both. f is the same whichever is asked, up to the last bit: a jet divides by
  /// multiplying with the reciprocal (ceres/jet.h), double arithmetic divides.
  static int forces(const void* context, const double* q, const double* v, const double* u, double t, double* f,
                    double* f_q, double* f_v) {
    if constexpr (ForcedModel<M>) {
      return guarded([&] {
        const M& model = model_of(context);
        if (f_q == nullptr && f_v == nullptr) {
          const VecD<n> value = model_generalized_force<M, double>(model, vec(q), vec(v), controls_of(u), t);
          Eigen::Map<VecD<n>>{f} = value;
          return value.allFinite();
        }
        if (f_q == nullptr || f_v == nullptr) return force_and_one_jacobian(model, q, v, u, t, f, f_q, f_v);
        constexpr int w = 2 * n;
        using J = Jet<w>;
        Vec<J, n> qj, vj;
        for (int i = 0; i < n; ++i) qj[i] = J(q[i], i), vj[i] = J(v[i], n + i);
        const Vec<J, n> fj = model_generalized_force<M, J>(model, qj, vj, constant_controls<J>(u), t);
        bool finite = true;
        for (int i = 0; i < n; ++i) {
          f[i] = fj[i].a;
          finite = finite && std::isfinite(f[i]) && fj[i].v.allFinite();
          for (int j = 0; j < n; ++j) f_q[i * n + j] = fj[i].v[j], f_v[i * n + j] = fj[i].v[n + j];
        }
        return finite;
      });
    } else {
      (void)context, (void)q, (void)v, (void)u, (void)t, (void)f, (void)f_q, (void)f_v;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  /// f and the one Jacobian asked for (f_q or f_v, the other null), from one jet over that argument.
  static bool force_and_one_jacobian(const M& model, const double* q, const double* v, const double* u, double t,
                                     double* f, double* f_q, double* f_v) {
    using J = Jet<n>;
    const bool over_q = f_q != nullptr;
    Vec<J, n> qj, vj;
    for (int i = 0; i < n; ++i) {
      qj[i] = over_q ? J(q[i], i) : J(q[i]);
      vj[i] = over_q ? J(v[i]) : J(v[i], i);
    }
    const Vec<J, n> fj = model_generalized_force<M, J>(model, qj, vj, constant_controls<J>(u), t);
    double* jacobian = over_q ? f_q : f_v;
    bool finite = true;
    for (int i = 0; i < n; ++i) {
      f[i] = fj[i].a;
      finite = finite && std::isfinite(f[i]) && fj[i].v.allFinite();
      for (int j = 0; j < n; ++j) jacobian[i * n + j] = fj[i].v[j];
    }
    return finite;
  }

  static Vec<double, m> controls_of(const double* u) {
    Vec<double, m> values;
    for (int i = 0; i < m; ++i) values[i] = u[i];
    return values;
  }

  template <class J>
  static Vec<J, m> constant_controls(const double* u) {
    Vec<J, m> values;
    for (int i = 0; i < m; ++i) values[i] = J(u[i]);
    return values;
  }

  /// s(q), and its gradient (one jet over q) and Hessian (a second-order jet) when asked for: the
  /// physical clock asks for s alone at every stage.
  static int time_scale(const void* context, const double* q, double* s, double* s_q, double* s_qq) {
    if constexpr (kHasTimeScale) {
      return guarded([&] {
        if (s_qq == nullptr) {
          if (s_q == nullptr) {
            *s = model_of(context).template time_scale<double>(vec(q));
            return std::isfinite(*s);
          }
          Vec<Jet<n>, n> qj;
          for (int i = 0; i < n; ++i) qj[i] = Jet<n>(q[i], i);
          const Jet<n> r = model_of(context).template time_scale<Jet<n>>(qj);
          *s = r.a;
          Eigen::Map<VecD<n>>{s_q} = r.v;
          return std::isfinite(*s) && r.v.allFinite();
        }
        using J = SecondOrderJet<n>;
        const J r = second_order_expansion<n>(
            [&](const Vec<J, n>& x) { return model_of(context).template time_scale<J>(x); }, vec(q));
        const VecD<n> gradient = gradient_of(r);
        const Mat<n, n> hessian = hessian_of(r);
        *s = r.a;
        if (s_q) Eigen::Map<VecD<n>>{s_q} = gradient;
        Eigen::Map<RowMajorMatrix<n, n>>{s_qq} = hessian;
        const bool finite = std::isfinite(*s) && gradient.allFinite() && hessian.allFinite();
        return finite;
      });
    } else {
      (void)context, (void)q, (void)s, (void)s_q, (void)s_qq;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  /// φ(q) and Dφ(q), one jet over q (model/unilateral.hpp).
  static int unilateral(const void* context, const double* q, double* phi, double* dphi) {
    if constexpr (HasUnilateralConstraints<M>) {
      return guarded([&] {
        constexpr int w = M::kNumUnilateral;
        VecD<w> values;
        Mat<w, n> jacobian;
        unilateral_values_and_gradients(model_of(context), vec(q), values, jacobian);
        if (phi) Eigen::Map<VecD<w>>{phi} = values;
        if (dphi) Eigen::Map<RowMajorMatrix<w, n>>{dphi} = jacobian;
        return values.allFinite() && jacobian.allFinite();
      });
    } else {
      (void)context, (void)q, (void)phi, (void)dphi;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  template <class F>
  static int with_rule(int32_t rule, F&& f) {
    switch (rule) {
      case MECHINT_RULE_MIDPOINT: return f(std::type_identity<MidpointRule>{});
      case MECHINT_RULE_TRAPEZOID: return f(std::type_identity<TrapezoidRule>{});
      case MECHINT_RULE_FIRST_ORDER: return f(std::type_identity<FirstOrderRule>{});
      default: return MECHINT_KERNEL_OUTSIDE_DOMAIN;  // never asked: DiscreteRule asks for the rules supplied
    }
  }

  static int discrete_lagrangian(const void* context, int32_t rule, double h, const double* q0, const double* q1,
                                 double* d1, double* d2, double* d12) {
    return with_rule(rule, [&]<class Rule>(std::type_identity<Rule>) {
      return guarded([&] {
        const DiscreteOf<Rule>& system = discrete_of<Rule>(context);
        const VecD<n> a = vec(q0), b = vec(q1);
        bool finite = true;
        if (d12) {
          VecD<n> first;
          Mat<n, n> mixed;
          discrete_lagrangian_d1_d12(system, a, b, h, first, mixed);
          if (d1) Eigen::Map<VecD<n>>{d1} = first;
          Eigen::Map<RowMajorMatrix<n, n>>{d12} = mixed;
          finite = first.allFinite() && mixed.allFinite();
        } else if (d1) {
          const VecD<n> first = discrete_lagrangian_d1(system, a, b, h);
          Eigen::Map<VecD<n>>{d1} = first;
          finite = first.allFinite();
        }
        if (d2) {
          const VecD<n> second = discrete_lagrangian_d2(system, a, b, h);
          Eigen::Map<VecD<n>>{d2} = second;
          finite = finite && second.allFinite();
        }
        return finite;
      });
    });
  }

  static int discrete_forces(const void* context, int32_t rule, double h, const double* q0, const double* q1,
                             const double* u, double t0, double* f_minus, double* f_plus, double* df_minus) {
    if constexpr (ForcedModel<M>) {
      return with_rule(rule, [&]<class Rule>(std::type_identity<Rule>) {
        return guarded([&] {
          const DiscreteOf<Rule>& system = discrete_of<Rule>(context);
          const VecD<m> control = Eigen::Map<const VecD<m>>(u);
          VecD<n> minus, plus;
          bool finite = true;
          if (df_minus) {
            // f⁻, f⁺ and ∂f⁻/∂q1 from one evaluation on a jet over q1 (the values are the double
            // evaluation's arithmetic): what discrete_force_minus_and_jacobian does, keeping f⁺.
            Vec<Jet<n>, n> fm, fp;
            system.template discrete_forces<Jet<n>>(lift_constant<Jet<n>, n>(vec(q0)), seed_gradient<n>(vec(q1)),
                                                    lift_constant<Jet<n>, m>(control), t0, h, fm, fp);
            for (int i = 0; i < n; ++i) {
              minus[i] = fm[i].a, plus[i] = fp[i].a;
              for (int j = 0; j < n; ++j) df_minus[i * n + j] = fm[i].v[j];
              finite = finite && fm[i].v.allFinite();
            }
          } else {
            system.template discrete_forces<double>(vec(q0), vec(q1), control, t0, h, minus, plus);
          }
          Eigen::Map<VecD<n>>{f_minus} = minus;
          Eigen::Map<VecD<n>>{f_plus} = plus;
          return finite && minus.allFinite() && plus.allFinite();
        });
      });
    } else {
      (void)context, (void)rule, (void)h, (void)q0, (void)q1, (void)u, (void)t0, (void)f_minus, (void)f_plus,
          (void)df_minus;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  /// The DEL equations of one step of `Rule` at the model's size (model_kernels.h, discrete_step):
  /// R = h (p0 + D1 Ld + f⁻), J = h (D12 Ld + ∂f⁻/∂q1), the arithmetic of the kernel integrator's
  /// DelSystem (kernel/kernel_variational_integrator.cpp) on the values `discrete_lagrangian` and
  /// `discrete_forces` give, so a step solved here is bit for bit the step solved there.
  template <class Rule>
  struct DelStep {
    const DiscreteOf<Rule>& system;
    double h;
    VecD<n> q0, p0;
    const double* u;
    double t0;
    const mechint_newton_settings& settings;
    VecD<n> q1;
    double residual_scale;  // 1 + ‖h·p0‖∞

    /// D1 Ld + f⁻ and D12 Ld + ∂f⁻/∂q1 at (q0, q1); false where the model is not defined.
    [[gnu::always_inline]] bool derivatives(VecD<n>& d1, Mat<n, n>& d12) const {
      try {
        discrete_lagrangian_d1_d12(system, q0, q1, h, d1, d12);
        if (!d1.allFinite() || !d12.allFinite()) return false;
        if constexpr (ForcedModel<M>) {
          Vec<Jet<n>, n> fm, fp;
          system.template discrete_forces<Jet<n>>(lift_constant<Jet<n>, n>(q0), seed_gradient<n>(q1),
                                                  lift_constant<Jet<n>, m>(Eigen::Map<const VecD<m>>(u)), t0, h, fm, fp);
          VecD<n> minus;
          bool finite = true;
          for (int i = 0; i < n; ++i) {
            minus[i] = fm[i].a;
            finite = finite && fm[i].v.allFinite() && std::isfinite(fp[i].a);
          }
          if (!finite || !minus.allFinite()) return false;
          d1 += minus;
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) d12(i, j) += fm[i].v[j];
        }
        return true;
      } catch (const std::exception&) {  // a model's DomainError: not defined here
        return false;
      }
    }
    void assemble(VecD<n>& r, Mat<n, n>* j) {
      VecD<n> d1;
      Mat<n, n> d12;
      if (!derivatives(d1, d12)) {
        r.setConstant(std::numeric_limits<double>::quiet_NaN());
        return;
      }
      r = h * (p0 + d1);
      if (j) *j = h * d12;
    }
    double update(const VecD<n>& delta) {
      q1 -= delta;
      return delta.template lpNorm<Eigen::Infinity>();
    }
    bool converged_on_residual(const NewtonIterate& state) const {
      return state.residual_norm <= settings.residual_tolerance * residual_scale;
    }
    bool converged_on_update(const NewtonIterate& state) const {
      return update_converged(state, NewtonVariant::kFull, settings.step_tolerance,
                              1.0 + q1.template lpNorm<Eigen::Infinity>());
    }
  };

  /// The end of a converged step (model_kernels.h, discrete_step): p1 = D2 Ld + f⁺ and the step's f⁻,
  /// f⁺ at q1, by the arithmetic of `discrete_lagrangian` and `discrete_forces` without their call
  /// (the kernel integrator's momentum update from them, kernel_variational_integrator.cpp).
  template <class Rule>
  static void step_end(const DiscreteOf<Rule>& system, double h, const VecD<n>& q0, const VecD<n>& q1, const double* u,
                       double t0, double* p1, double* f_minus, double* f_plus) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    bool defined = true;
    VecD<n> momentum;
    try {
      momentum = discrete_lagrangian_d2(system, q0, q1, h);
      defined = momentum.allFinite();
    } catch (const std::exception&) {  // a model's DomainError: not defined here
      defined = false;
    }
    if constexpr (ForcedModel<M>) {
      VecD<n> minus, plus;
      bool forces_defined = true;
      try {
        system.template discrete_forces<double>(q0, q1, Eigen::Map<const VecD<m>>(u), t0, h, minus, plus);
        forces_defined = minus.allFinite() && plus.allFinite();
      } catch (const std::exception&) {
        forces_defined = false;
      }
      if (!forces_defined) minus.setConstant(nan), plus.setConstant(nan);
      Eigen::Map<VecD<n>>{f_minus} = minus;
      Eigen::Map<VecD<n>>{f_plus} = plus;
      momentum += plus;
      defined = defined && forces_defined;
    } else {
      (void)u, (void)t0, (void)f_minus, (void)f_plus;
    }
    if (!defined) momentum.setConstant(nan);
    Eigen::Map<VecD<n>>{p1} = momentum;
  }

  static int discrete_step(const void* context, int32_t rule, double h, const double* q0, const double* p0,
                           const double* u, double t0, const mechint_newton_settings* settings, double* q1, double* p1,
                           double* f_minus, double* f_plus, mechint_newton_report* report) {
    if constexpr (k == 0) {
      return with_rule(rule, [&]<class Rule>(std::type_identity<Rule>) {
        DelStep<Rule> problem{discrete_of<Rule>(context), h, vec(q0), vec(p0), u, t0, *settings, vec(q1), 0.0};
        problem.residual_scale = 1.0 + (h * problem.p0).template lpNorm<Eigen::Infinity>();
        NewtonSolver<n> newton;
        const NewtonStats stats =
            newton.solve(problem, NewtonPolicy{.variant = NewtonVariant::kFull, .max_iterations = settings->max_iterations});
        Eigen::Map<VecD<n>>{q1} = problem.q1;
        if (p1 && stats.converged && problem.q1.allFinite())
          step_end<Rule>(problem.system, h, problem.q0, problem.q1, u, t0, p1, f_minus, f_plus);
        *report = {stats.iterations,          stats.converged ? 1 : 0,   stats.jacobian_evaluations,
                   stats.residual_norm,       stats.first_update_norm, stats.first_contraction};
        return MECHINT_KERNEL_OK;
      });
    } else {
      (void)context, (void)rule, (void)h, (void)q0, (void)p0, (void)u, (void)t0, (void)settings, (void)q1, (void)p1,
          (void)f_minus, (void)f_plus, (void)report;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  /// ∇²_z (∇L(z)·d) at z = (q, v), d = (dq, dv): L's third derivatives along d, one pass of a jet of
  /// jets over z whose innermost scalar carries the derivative along d (optimal/block_derivatives.hpp).
  static int lagrangian_third(const void* context, const double* q, const double* v, const double* dq,
                              const double* dv, double* h) {
    if constexpr (kOptimalControl) {
      return guarded([&] {
        const M& model = model_of(context);
        VecD<2 * n> z, d;  // fixed-size halves (-Warray-bounds at n = 1, see position_hessian)
        z.template head<n>() = vec(q), z.template tail<n>() = vec(v);
        d.template head<n>() = vec(dq), d.template tail<n>() = vec(dv);
        const auto lagrangian_of = [&](const auto& y) {
          using T = typename std::decay_t<decltype(y)>::Scalar;
          const Vec<T, n> qy = y.template head<n>(), vy = y.template tail<n>();
          return model.template lagrangian<T>(qy, vy);
        };
        const Mat<2 * n, 2 * n> third = optimal::directional_hessian<2 * n>(lagrangian_of, z, d);
        Eigen::Map<RowMajorMatrix<2 * n, 2 * n>>{h} = third;
        return third.allFinite();
      });
    } else {
      (void)context, (void)q, (void)v, (void)dq, (void)dv, (void)h;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  /// ∂f/∂u by one jet over u, and the Hessian of μ·f over s = (q, v, u) by one jet of jets over s.
  static int forces_second(const void* context, const double* q, const double* v, const double* u, double t,
                           const double* mu, double* f_u, double* hessian) {
    if constexpr (kOptimalControl) {
      return guarded([&] {
        const M& model = model_of(context);
        bool finite = true;
        if (f_u) {
          using J = Jet<m>;
          Vec<J, n> qj, vj;
          Vec<J, m> uj;
          for (int i = 0; i < n; ++i) qj[i] = J(q[i]), vj[i] = J(v[i]);
          for (int i = 0; i < m; ++i) uj[i] = J(u[i], i);
          const Vec<J, n> fj = model_generalized_force<M, J>(model, qj, vj, uj, t);
          for (int i = 0; i < n; ++i) {
            for (int j = 0; j < m; ++j) f_u[i * m + j] = fj[i].v[j];
            finite = finite && fj[i].v.allFinite();
          }
        }
        if (hessian) {
          constexpr int w = 2 * n + m;
          VecD<w> s;  // fixed-size pieces (-Warray-bounds at n = 1, see position_hessian)
          s.template head<n>() = vec(q), s.template segment<n>(n) = vec(v), s.template tail<m>() = controls_of(u);
          const VecD<n> weights = vec(mu);
          const auto weighted_force = [&](const auto& y) {
            using T = typename std::decay_t<decltype(y)>::Scalar;
            const Vec<T, n> qy = y.template head<n>(), vy = y.template segment<n>(n);
            const Vec<T, m> uy = y.template tail<m>();
            const Vec<T, n> f = model_generalized_force<M, T>(model, qy, vy, uy, t);
            T sum = T();
            for (int i = 0; i < n; ++i) sum += weights[i] * f[i];
            return sum;
          };
          const Mat<w, w> second = optimal::value_gradient_hessian<w>(weighted_force, s).hessian;
          Eigen::Map<RowMajorMatrix<w, w>>{hessian} = second;
          finite = finite && second.allFinite();
        }
        return finite;
      });
    } else {
      (void)context, (void)q, (void)v, (void)u, (void)t, (void)mu, (void)f_u, (void)hessian;
      return MECHINT_KERNEL_OUTSIDE_DOMAIN;
    }
  }

  static void copy(const VecD<n>& x, double* out) {
    if (out) Eigen::Map<VecD<n>>{out} = x;
  }
  static void copy_matrix(const Mat<n, n>& a, double* out) {
    if (out) Eigen::Map<RowMajorMatrix<n, n>>{out} = a;
  }
};

template <LagrangianModel M>
std::shared_ptr<const KernelModel> ModelAdapter<M>::kernels(M model, bool with_walls) {
  return ModelKernelTable<M>::make(std::move(model), with_walls, [](mechint_model_kernels&) {});
}

template <LagrangianModel M>
std::shared_ptr<const KernelModel> ModelAdapter<M>::kernels_with_discrete_rules(M model, bool with_walls) {
  return ModelKernelTable<M>::make(std::move(model), with_walls, &ModelKernelTable<M>::supply_discrete_rules);
}

template <LagrangianModel M>
std::shared_ptr<const KernelModel> ModelAdapter<M>::kernels_for_runs(M model, bool with_walls) {
  // A model's own discrete Lagrangian must be supplied; only quadratures of L can be composed.
  if constexpr (ModelKernelTable<M>::kConstantMass && ModelKernelTable<M>::kOwnRules == 0)
    return kernels(std::move(model), with_walls);
  else
    return kernels_with_discrete_rules(std::move(model), with_walls);
}

}  // namespace mechint::kernel

/// The kernels a built-in system's runs use (`kernels`, and `kernels_for_runs` with what it calls),
/// instantiated in the system's source, at namespace scope. kernels_with_discrete_rules of a model
/// with a constant mass matrix is left to whoever asks for it (a test that compares the two).
#define MECHINT_INSTANTIATE_MODEL_KERNELS(Model)                                                             \
  template std::shared_ptr<const mechint::kernel::KernelModel> mechint::kernel::ModelAdapter<Model>::kernels(Model, \
                                                                                                              bool); \
  template std::shared_ptr<const mechint::kernel::KernelModel>                                               \
  mechint::kernel::ModelAdapter<Model>::kernels_for_runs(Model, bool)

/// The same two, declared (kernel/builtin_model_kernels.hpp): a source that includes this file for a
/// model of its own and also runs built-ins links to the built-ins' kernels instead of instantiating
/// them again.
#define MECHINT_DECLARE_MODEL_KERNELS(Model)                                                                 \
  extern template std::shared_ptr<const mechint::kernel::KernelModel>                                        \
  mechint::kernel::ModelAdapter<Model>::kernels(Model, bool);                                                \
  extern template std::shared_ptr<const mechint::kernel::KernelModel>                                        \
  mechint::kernel::ModelAdapter<Model>::kernels_for_runs(Model, bool)
