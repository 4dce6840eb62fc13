#include "kernel/kernel_model.hpp"

#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace mechint::kernel {

KernelModel::KernelModel(const mechint_model_kernels& kernels, std::shared_ptr<const void> owner)
    : kernels_(kernels), owner_(std::move(owner)) {
  const auto refuse = [](const std::string& what) { throw std::invalid_argument("model kernels: " + what); };
  if (kernels.abi_version != MECHINT_KERNEL_ABI_VERSION)
    refuse("ABI version " + std::to_string(kernels.abi_version) + ", this mechint reads version " +
           std::to_string(MECHINT_KERNEL_ABI_VERSION));
  // Members are only ever appended: a filler that knows a shorter table (one built against an
  // earlier header, into a table its caller zeroed) supplies none of the later members, which are
  // zeroed here whatever the memory behind them holds. The first table of this ABI version ended
  // with `unilateral`.
  constexpr std::size_t first_size = offsetof(mechint_model_kernels, discrete_rules);
  if (kernels.struct_size < first_size || kernels.struct_size > sizeof(mechint_model_kernels))
    refuse("table of " + std::to_string(kernels.struct_size) + " bytes, this ABI version's has " +
           std::to_string(first_size) + " to " + std::to_string(sizeof(mechint_model_kernels)));
  if (kernels.struct_size < sizeof(mechint_model_kernels)) {
    auto* bytes = reinterpret_cast<unsigned char*>(&kernels_);
    std::memset(bytes + kernels.struct_size, 0, sizeof(mechint_model_kernels) - kernels.struct_size);
  }
  if (kernels.dim < 1) refuse("dimension " + std::to_string(kernels.dim));
  if (kernels.num_constraints < 0 || kernels.num_constraints >= kernels.dim)
    refuse(std::to_string(kernels.num_constraints) + " constraints on " + std::to_string(kernels.dim) + " coordinates");
  if (kernels.num_symmetries < 0 || kernels.num_controls < 0) refuse("negative count");
  if (kernels.lagrangian == nullptr) refuse("no Lagrangian");
  if (kernels.num_constraints > 0 && kernels.constraints == nullptr) refuse("constraints declared, no function");
  if (kernels.num_symmetries > 0 && kernels.symmetry == nullptr) refuse("symmetries declared, no function");
  if (kernels.has_forces && kernels.forces == nullptr) refuse("forces declared, no function");
  if (!kernels.has_forces && kernels.num_controls > 0) refuse("controls without forces");
  if (kernels.num_nonholonomic < 0 || kernels.num_nonholonomic + kernels.num_constraints >= kernels.dim)
    refuse(std::to_string(kernels.num_nonholonomic) + " nonholonomic and " + std::to_string(kernels.num_constraints) +
           " holonomic constraints on " + std::to_string(kernels.dim) + " coordinates");
  if (kernels.num_nonholonomic > 0 && kernels.nonholonomic == nullptr) refuse("nonholonomic constraints declared, no function");
  if (kernels.num_unilateral < 0) refuse("negative count of walls");
  if (kernels.num_unilateral > 0 && kernels.unilateral == nullptr) refuse("walls declared, no function");
  if (kernels_.num_domain < 0) refuse("negative count of domain inequalities");
  if (kernels_.num_domain > 0 && kernels_.domain == nullptr) refuse("a domain declared, no function");
  constexpr uint32_t known_rules =
      (1u << MECHINT_RULE_MIDPOINT) | (1u << MECHINT_RULE_TRAPEZOID) | (1u << MECHINT_RULE_FIRST_ORDER);
  if ((kernels_.discrete_rules & ~known_rules) != 0) refuse("discrete Lagrangians of unknown rules");
  if ((kernels_.own_discrete_rules & ~kernels_.discrete_rules) != 0)
    refuse("own discrete Lagrangians of rules it does not supply");
  if (kernels_.discrete_rules != 0 && kernels_.discrete_lagrangian == nullptr)
    refuse("discrete Lagrangians declared, no function");
  if (kernels_.discrete_rules != 0 && kernels_.has_forces && kernels_.discrete_forces == nullptr)
    refuse("discrete Lagrangians of a forced model declared, no discrete forces");
  if (kernels_.lagrangian_third != nullptr && kernels_.has_forces && kernels_.forces_second == nullptr)
    refuse("third derivatives of L without the second derivatives of the forces");
}



bool KernelModel::lagrangian_third(const Vector& q, const Vector& v, const Vector& dq, const Vector& dv,
                                   RowMatrix& out) const {
  out.resize(2 * dim(), 2 * dim());
  return kernels_.lagrangian_third(kernels_.context, q.data(), v.data(), dq.data(), dv.data(), out.data()) ==
         MECHINT_KERNEL_OK;
}

bool KernelModel::forces_second(const Vector& q, const Vector& v, const Vector& u, double t, const Vector* mu,
                                RowMatrix* f_u, RowMatrix* hessian) const {
  const int n = dim(), m = num_controls();
  if (f_u) f_u->resize(n, m);
  if (hessian) hessian->resize(2 * n + m, 2 * n + m);
  return kernels_.forces_second(kernels_.context, q.data(), v.data(), u.data(), t, mu ? mu->data() : nullptr,
                                f_u ? f_u->data() : nullptr, hessian ? hessian->data() : nullptr) == MECHINT_KERNEL_OK;
}

bool KernelModel::velocity_hessians(const Vector& q, const Vector& v, Vector& l_q, RowMatrix& l_qv,
                                    RowMatrix& l_vv) const {
  return kernels_.lagrangian(kernels_.context, q.data(), v.data(), nullptr, l_q.data(), nullptr, nullptr, l_qv.data(),
                             l_vv.data()) == MECHINT_KERNEL_OK;
}

bool KernelModel::velocity_derivatives(const Vector& q, const Vector& v, Vector& l_v, RowMatrix& l_vv) const {
  return kernels_.lagrangian(kernels_.context, q.data(), v.data(), nullptr, nullptr, l_v.data(), nullptr, nullptr,
                             l_vv.data()) == MECHINT_KERNEL_OK;
}

bool KernelModel::constraints(const Vector& q, Vector* g, RowMatrix* dg) const {
  return kernels_.constraints(kernels_.context, q.data(), g ? g->data() : nullptr, dg ? dg->data() : nullptr) ==
         MECHINT_KERNEL_OK;
}

bool KernelModel::constraint_curvature(const Vector& q, const Vector& lambda, RowMatrix& out) const {
  return kernels_.constraint_curvature(kernels_.context, q.data(), lambda.data(), out.data()) == MECHINT_KERNEL_OK;
}

bool KernelModel::symmetry(int i, const Vector& q, Vector& xi) const {
  return kernels_.symmetry(kernels_.context, i, q.data(), xi.data()) == MECHINT_KERNEL_OK;
}

bool KernelModel::forces(const Vector& q, const Vector& v, const Vector& u, double t, Vector& f, RowMatrix* f_q,
                         RowMatrix* f_v) const {
  return kernels_.forces(kernels_.context, q.data(), v.data(), u.data(), t, f.data(), f_q ? f_q->data() : nullptr,
                         f_v ? f_v->data() : nullptr) == MECHINT_KERNEL_OK;
}

bool KernelModel::time_scale(const Vector& q, double& s, Vector* s_q, RowMatrix* s_qq) const {
  return kernels_.time_scale(kernels_.context, q.data(), &s, s_q ? s_q->data() : nullptr,
                             s_qq ? s_qq->data() : nullptr) == MECHINT_KERNEL_OK;
}

bool KernelModel::nonholonomic(const Vector& q, const Vector& w, RowMatrix* a, RowMatrix* aw_q) const {
  return kernels_.nonholonomic(kernels_.context, q.data(), w.data(), a ? a->data() : nullptr,
                               aw_q ? aw_q->data() : nullptr) == MECHINT_KERNEL_OK;
}

bool KernelModel::unilateral(const Vector& q, Vector* phi, RowMatrix* dphi) const {
  return kernels_.unilateral(kernels_.context, q.data(), phi ? phi->data() : nullptr, dphi ? dphi->data() : nullptr) ==
         MECHINT_KERNEL_OK;
}



}  // namespace mechint::kernel
