#include "kernel/start_checks.hpp"

#include <cmath>
#include <numbers>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
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

namespace {

/// Whether L is 2π-periodic in coordinate i around the start, and depends on it there: L and ∂L/∂q
/// agree, to round-off of their size, at the coordinate reduced to (−π, π] and shifted by ±2π, and
/// ∂L/∂q_i is not zero at all three points. A model not defined at one of them is not judged.
bool is_angle_of_lagrangian(const KernelModel& model, const Vector& q0, const Vector& qdot0, int i) {
  constexpr double kTurn = 2.0 * std::numbers::pi;
  const int n = model.dim();
  Vector q = q0, l_q(n), l_q_shifted(n);
  q[i] = std::remainder(q0[i], kTurn);
  double value = 0.0;
  if (!model.gradient(q, qdot0, &value, &l_q, nullptr) || !std::isfinite(value) || !l_q.allFinite()) return false;
  const double size = std::abs(value) + l_q.lpNorm<Eigen::Infinity>();
  bool depends = l_q[i] != 0.0;
  for (const double shift : {kTurn, -kTurn}) {
    Vector shifted = q;
    shifted[i] += shift;
    double shifted_value = 0.0;
    if (!model.gradient(shifted, qdot0, &shifted_value, &l_q_shifted, nullptr)) return false;
    if (!(std::abs(shifted_value - value) <= 1e-9 * size) ||
        !((l_q_shifted - l_q).lpNorm<Eigen::Infinity>() <= 1e-9 * size))
      return false;
    depends = depends || l_q_shifted[i] != 0.0;
  }
  return depends;
}

}  // namespace

void check_start_precision(const KernelModel& model, const Vector& q0, const Vector& qdot0,
                           const std::vector<std::string>& names) {
  for (int i = 0; i < model.dim(); ++i) {
    const double x = q0[i];
    const std::string name = i < static_cast<int>(names.size()) ? names[static_cast<std::size_t>(i)]
                                                                 : "q" + std::to_string(i + 1);
    const double spacing = std::nextafter(std::abs(x), INFINITY) - std::abs(x);
    // Only angles: a large coordinate that is not one keeps its relative precision (a distance of
    // 1e17 m between stars is a legitimate start), and a start too large to evaluate is refused by
    // check_start (not finite) or stops the run (exit 3).
    if (std::abs(x) > kLargestAngle && is_angle_of_lagrangian(model, q0, qdot0, i))
      throw InvalidStart("the angle " + name + " = " + format_number(x) + " rad has lost its precision (doubles near it are " +
                         format_number(spacing) + " rad apart): give it in (-pi, pi], or within 1e7 rad");
  }
}

}  // namespace mechint::kernel
