#include "kernel/start_checks.hpp"

#include "mechint/core/errors.hpp"
#include "mechint/model/start_on_manifold.hpp"

namespace mechint::kernel {

RowMatrix check_start_on_constraints(const KernelModel& model, const Vector& q0, const Vector* qdot0) {
  const int k = model.num_constraints(), n = model.dim();
  RowMatrix dg(k, n);
  if (k == 0) return dg;
  Vector g(k);
  if (!model.constraints(q0, &g, &dg)) throw InvalidStart("the constraints are not defined at the start");
  check_start_position(Eigen::VectorXd(g), Eigen::MatrixXd(dg), Eigen::VectorXd(q0));
  if (qdot0) check_start_velocity(Eigen::MatrixXd(dg), Eigen::VectorXd(*qdot0));
  return dg;
}

}  // namespace mechint::kernel
