#include "kernel/sundman_transformation.hpp"

#include <cmath>

#include "mechint/core/errors.hpp"

namespace mechint::kernel {

/// The transformed model's context: the model, E0 and the workspace of one evaluation.
struct SundmanTransformation::Context {
  explicit Context(std::shared_ptr<const KernelModel> m)
      : base(std::move(m)),
        n(base->dim()),
        k(base->num_constraints()),
        q(n),
        v(n),
        values(n),
        s_q(n),
        s_qq(n, n),
        e_q(n),
        mass_v(n),
        g(k),
        dg(k, n),
        lambda(k),
        curvature(n, n),
        xi(n) {}

  std::shared_ptr<const KernelModel> base;
  int n, k;
  double e0 = 0.0;
  bool refused = false;
  double refused_scale = 0.0;
  Vector q, v;
  LagrangianValues values;
  Vector s_q;
  RowMatrix s_qq;
  Vector e_q, mass_v, g;
  RowMatrix dg;
  Vector lambda;
  RowMatrix curvature;
  Vector xi;
};

namespace {

using Context = SundmanTransformation::Context;
using Map = Eigen::Map<Vector>;
using RowMap = Eigen::Map<RowMatrix>;

Context& context_of(const void* c) { return *static_cast<Context*>(const_cast<void*>(c)); }

/// L̃ and its derivatives (the file comment's formulas).
int lagrangian(const void* c, const double* q, const double* w, double* value, double* l_q, double* l_w,
               double* l_qq, double* l_qw, double* l_ww) {
  Context& x = context_of(c);
  const int n = x.n;
  x.q = Eigen::Map<const Vector>(q, n);
  const bool second = l_qq || l_qw || l_ww;
  double s = 0.0;
  if (!x.base->time_scale(x.q, s, &x.s_q, second ? &x.s_qq : nullptr) || !(s > 0.0) || !std::isfinite(s)) {
    if (!x.refused) x.refused = true, x.refused_scale = s;
    return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  }
  x.v = Eigen::Map<const Vector>(w, n) / s;
  LagrangianValues& l = x.values;
  const bool defined = second ? x.base->lagrangian(x.q, x.v, l, /*with_value=*/true)
                              : x.base->gradient(x.q, x.v, &l.value, &l.q, &l.v);
  if (!defined) return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  const double energy_offset = l.v.dot(x.v) - l.value - x.e0;  // E − E0
  if (value) *value = s * (l.value + x.e0);
  if (l_q) Map(l_q, n) = s * l.q - energy_offset * x.s_q;
  if (l_w) Map(l_w, n) = l.v;
  if (second) {
    x.e_q.noalias() = l.qv * x.v;
    x.e_q -= l.q;
    x.mass_v.noalias() = l.vv * x.v;
    const double c2 = x.v.dot(x.mass_v);
    if (l_qq) {
      RowMap qq(l_qq, n, n);
      qq = s * l.qq - energy_offset * x.s_qq;
      qq.noalias() -= x.e_q * x.s_q.transpose();
      qq.noalias() -= x.s_q * x.e_q.transpose();
      qq.noalias() += (c2 / s) * x.s_q * x.s_q.transpose();
    }
    if (l_qw) {
      RowMap qw(l_qw, n, n);
      qw = l.qv;
      qw.noalias() -= (1.0 / s) * x.s_q * x.mass_v.transpose();
    }
    if (l_ww) RowMap(l_ww, n, n) = l.vv / s;
  }
  return MECHINT_KERNEL_OK;
}

int constraints(const void* c, const double* q, double* g, double* dg) {
  Context& x = context_of(c);
  x.q = Eigen::Map<const Vector>(q, x.n);
  if (!x.base->constraints(x.q, g ? &x.g : nullptr, dg ? &x.dg : nullptr)) return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  if (g) Map(g, x.k) = x.g;
  if (dg) RowMap(dg, x.k, x.n) = x.dg;
  return MECHINT_KERNEL_OK;
}

/// g is the base model's, so is its curvature.
int constraint_curvature(const void* c, const double* q, const double* lambda, double* h) {
  Context& x = context_of(c);
  x.q = Eigen::Map<const Vector>(q, x.n);
  x.lambda = Eigen::Map<const Vector>(lambda, x.k);
  if (!x.base->constraint_curvature(x.q, x.lambda, x.curvature)) return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  RowMap(h, x.n, x.n) = x.curvature;
  return MECHINT_KERNEL_OK;
}

int symmetry(const void* c, int32_t index, const double* q, double* xi) {
  Context& x = context_of(c);
  x.q = Eigen::Map<const Vector>(q, x.n);
  if (!x.base->symmetry(index, x.q, x.xi)) return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  Map(xi, x.n) = x.xi;
  return MECHINT_KERNEL_OK;
}

}  // namespace

SundmanTransformation::SundmanTransformation(std::shared_ptr<const KernelModel> base) {
  if (!base->has_time_scale())
    throw InvalidInput("adapt=sundman needs a time scale s(q), and this model declares none (a model file's "
                       "time_scale = \"expression\")");
  if (base->forced())
    throw InvalidInput("adapt=sundman applies to models without forces or controls (they depend on the physical time)");
  if (base->num_nonholonomic() > 0) throw InvalidInput("adapt=sundman does not apply to nonholonomic constraints");
  context_ = std::make_unique<Context>(std::move(base));
  const KernelModel& m = *context_->base;
  mechint_model_kernels t{};
  t.abi_version = MECHINT_KERNEL_ABI_VERSION;
  t.struct_size = sizeof(mechint_model_kernels);
  t.dim = m.dim();
  t.num_constraints = m.num_constraints();
  t.num_symmetries = m.num_symmetries();
  t.context = context_.get();
  t.lagrangian = &lagrangian;
  if (m.num_constraints() > 0) t.constraints = &constraints;
  if (m.has_constraint_curvature()) t.constraint_curvature = &constraint_curvature;
  if (m.num_symmetries() > 0) t.symmetry = &symmetry;
  model_ = std::make_unique<KernelModel>(t, nullptr);
  // The model's own domain checks (an encounter a step does not resolve) apply unchanged.
  model_->set_step_check([&m](const Vector& q_before, const Vector& q, double t) { m.check_step(q_before, q, t); });
}

SundmanTransformation::~SundmanTransformation() = default;

const KernelModel& SundmanTransformation::base() const { return *context_->base; }
void SundmanTransformation::set_energy_level(double e0) { context_->e0 = e0; }
double SundmanTransformation::energy_level() const { return context_->e0; }

bool SundmanTransformation::refused_scale(double& s) const {
  s = context_->refused_scale;
  return context_->refused;
}

void SundmanTransformation::clear_refused_scale() { context_->refused = false; }

}  // namespace mechint::kernel
