#include "methods/kernel_problem.hpp"

#include <cmath>
#include <stdexcept>

#include <Eigen/LU>

#include "kernel/start_checks.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::methods {
namespace {

/// Refuses (InvalidStart) a periodic coordinate so large that its doubles have lost their precision.
void check_start_angles(const OutputLabels& labels, const Eigen::VectorXd& q0) {
  // An angle so large that the doubles near it are far apart has lost its precision: at 1e17 rad
  // they are 16 rad apart and the motion freezes. Up to 1e7 rad they are at most 2e-9 rad apart.
  constexpr double kLargestAngle = 1e7;
  for (std::size_t i = 0; i < labels.periodic.size(); ++i) {
    const double angle = q0[static_cast<Eigen::Index>(i)];
    if (labels.periodic[i] && !(std::abs(angle) <= kLargestAngle))
      throw InvalidStart("the angle " + labels.coordinates[i] + " = " + format_number(angle) +
                         " rad has lost its precision (doubles near it are " +
                         format_number(std::nextafter(std::abs(angle), INFINITY) - std::abs(angle)) +
                         " rad apart): give it in (-pi, pi], or within 1e7 rad");
  }
}

}  // namespace

void check_kernel_start(const KernelProblem& p) {
  const kernel::KernelModel& m = *p.model;
  const int n = m.dim(), k = m.num_constraints();
  if (p.q0.size() != n || p.qdot0.size() != n) throw std::logic_error("start does not match the model");
  if (!p.q0.allFinite() || !p.qdot0.allFinite()) throw InvalidStart("the initial values are not finite");
  check_start_angles(p.labels, p.q0);
  kernel::check_start_precision(m, p.q0, p.qdot0, p.labels.coordinates);
  kernel::LagrangianValues l(n);
  if (!m.lagrangian(p.q0, p.qdot0, l, /*with_value=*/true)) throw InvalidStart("the model is not defined at the start (outside its domain)");
  kernel::Vector g(k);
  kernel::RowMatrix dg(k, n);
  const bool constraints_defined = k == 0 || m.constraints(p.q0, &g, &dg);
  const double e = l.v.dot(p.qdot0) - l.value;
  const char* what = !std::isfinite(l.value)                                       ? "the Lagrangian"
                     : !std::isfinite(e)                                           ? "the energy"
                     : !(l.q.allFinite() && l.v.allFinite())                       ? "the gradient of L"
                     : !(l.qq.allFinite() && l.qv.allFinite() && l.vv.allFinite()) ? "the Hessian of L"
                     : !(constraints_defined && g.allFinite() && dg.allFinite())   ? "the constraints"
                                                                                   : nullptr;
  if (what) throw InvalidStart(std::string(what) + " is not finite at the start: check the parameters and initial values");
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n + k, n + k);
  bordered.topLeftCorner(n, n) = l.vv;
  if (k > 0) {
    bordered.topRightCorner(n, k) = dg.transpose();
    bordered.bottomLeftCorner(k, n) = dg;
  }
  if (!Eigen::FullPivLU<Eigen::MatrixXd>(bordered).isInvertible())
    throw InvalidStart("the kinetic energy is degenerate at the start (the mass matrix, bordered by the constraint "
                       "Jacobian, is singular): check the parameters (masses, lengths, inertia) and initial values");
}

std::function<void(double t, kernel::Vector& u)> control_law(const KernelProblem& p) {
  if (p.model->num_controls() == 0) return nullptr;
  return [&controls = p.controls](double t, kernel::Vector& u) { controls.at(t, u); };
}

}  // namespace mechint::methods
