#include "experiments/poincare_section.hpp"

#include <array>
#include <cmath>
#include <cstdint>

#include <boost/math/interpolators/quintic_hermite.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include "kernel/kernel_runge_kutta.hpp"

namespace mechint::experiments {
namespace {

using kernel::Vector;

/// A state on the run with its acceleration: what the interpolant needs at each end of a step.
struct Node {
  double t;
  Vector q, v, a;
};

/// The node at (t, q, v), its acceleration from the Euler–Lagrange ODE.
Node node_at(double t, const Vector& q, const Vector& v, const kernel::KernelEulerLagrangeOde& ode) {
  const auto n = q.size();
  Node node{t, q, v, Vector(n)};
  std::vector<double> x(2 * n), dxdt(2 * n);
  Eigen::Map<Vector>(x.data(), n) = q;
  Eigen::Map<Vector>(x.data() + n, n) = v;
  ode(x, dxdt, t);
  node.a = Eigen::Map<const Vector>(dxdt.data() + n, n);
  return node;
}

using Interpolant = boost::math::interpolators::quintic_hermite<std::vector<double>>;

Interpolant interpolant(const Node& a, const Node& b, int j) {
  return Interpolant({a.t, b.t}, {a.q[j], b.q[j]}, {a.v[j], b.v[j]}, {a.a[j], b.a[j]});
}

/// The crossing between a (q_i < 0) and b (q_i ≥ 0).
SectionCrossing crossing_between(const Node& a, const Node& b, int coordinate) {
  const int n = static_cast<int>(a.q.size());
  const Interpolant qi = interpolant(a, b, coordinate);
  double t = b.t;
  if (b.q[coordinate] != 0.0) {
    // Bracketed by construction; 60 evaluations bound TOMS 748 far beyond the ~10 it needs here.
    std::uintmax_t evaluations = 60;
    const auto [lo, hi] = boost::math::tools::toms748_solve([&](double s) { return qi(s); }, a.t, b.t, a.q[coordinate],
                                                            b.q[coordinate], boost::math::tools::eps_tolerance<double>(), evaluations);
    t = 0.5 * (lo + hi);
  }
  SectionCrossing c{t, Vector(n), Vector(n)};
  for (int j = 0; j < n; ++j) {
    const Interpolant qj = interpolant(a, b, j);
    c.q[j] = qj(t);
    c.v[j] = qj.prime(t);
  }
  c.q[coordinate] = 0.0;  // the root's residual, a few ulps
  return c;
}

}  // namespace

std::vector<SectionCrossing> section_crossings(const kernel::KernelModel& model, const kernel::GalerkinTableau& tableau,
                                               double h, const Vector& q0, const Vector& v0, double t_end,
                                               int coordinate) {
  kernel::KernelGalerkinIntegrator vi(model, tableau, h);
  vi.start_from_velocity(q0, v0);
  const kernel::KernelEulerLagrangeOde ode(model, nullptr);
  const long steps = std::lround(t_end / h);
  std::vector<SectionCrossing> crossings;
  double t_before = vi.time();
  Vector q_before = vi.q(), v_before = vi.velocity();
  for (long i = 0; i < steps; ++i) {
    vi.step();
    const Vector v = vi.velocity();
    // Only the steps that bracket a crossing pay for the accelerations and the interpolation.
    if (q_before[coordinate] < 0.0 && vi.q()[coordinate] >= 0.0) {
      SectionCrossing c = crossing_between(node_at(t_before, q_before, v_before, ode),
                                           node_at(vi.time(), vi.q(), v, ode), coordinate);
      if (c.v[coordinate] > 0.0) crossings.push_back(std::move(c));
    }
    t_before = vi.time();
    q_before = vi.q();
    v_before = v;
  }
  return crossings;
}

}  // namespace mechint::experiments
