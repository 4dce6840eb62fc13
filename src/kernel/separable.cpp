#include "kernel/separable.hpp"

#include <Eigen/LU>

#include "mechint/model/separable_lagrangian.hpp"

namespace mechint::kernel {

std::optional<SeparableKinetics> separable_kinetics(const KernelModel& model, const Vector& q0, const Vector& v0) {
  if (model.num_constraints() > 0 || model.forced() || model.num_nonholonomic() > 0) return std::nullopt;
  const int n = model.dim();
  LagrangianValues start(n), at(n);
  bool first = true;
  const bool separable = separable_around(q0, v0, [&](const Vector& q, const Vector& v) {
    LagrangianValues& l = first ? start : at;
    if (!model.lagrangian(q, v, l) || !(l.qv.array() == 0.0).all()) return false;
    const bool same = first || at.vv == start.vv;
    first = false;
    return same;
  });
  if (!separable) return std::nullopt;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu{Eigen::MatrixXd(start.vv)};
  if (!lu.isInvertible()) return std::nullopt;
  SeparableKinetics kinetics;
  kinetics.mass = start.vv;
  kinetics.mass_inverse = lu.inverse();
  kinetics.diagonal = start.vv.isDiagonal(0.0) && kinetics.mass_inverse.isDiagonal(0.0);
  kinetics.inverse_diagonal = kinetics.mass_inverse.diagonal();
  kinetics.linear.setZero(n);
  if (!model.gradient(q0, Vector::Zero(n), nullptr, nullptr, &kinetics.linear)) return std::nullopt;
  kinetics.unit = kinetics.diagonal && (kinetics.inverse_diagonal.array() == 1.0).all() && (kinetics.linear.array() == 0.0).all();
  return kinetics;
}

}  // namespace mechint::kernel
