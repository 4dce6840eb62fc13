#include <algorithm>
#include <cmath>
#include <string>

#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/systems/rigid_body.hpp"

namespace mechint::systems {
namespace {

/// The free rigid body as the box whose principal moments are I1, I2, I3 (a uniform box of sides
/// a, b, c has I1 ∝ b² + c², ...), turned by R(q) of the unit quaternion q = (qs, qx, qy, qz).
app::DrawingText rigid_body_drawing(const app::ParameterValues& v) {
  const double i1 = v.real("I1"), i2 = v.real("I2"), i3 = v.real("I3");
  const auto half = [&](double a, double b, double c) { return std::sqrt(std::max(0.5 * (b + c - a), 0.05 * (a + b + c))); };
  double extent[3] = {half(i1, i2, i3), half(i2, i1, i3), half(i3, i1, i2)};
  const double largest = std::max({extent[0], extent[1], extent[2]});
  for (double& e : extent) e /= largest;  // the longest half-side is 1
  // Rows of R(q).
  const char* r[3][3] = {{"(1 - 2*(qy^2 + qz^2))", "2*(qx*qy - qs*qz)", "2*(qx*qz + qs*qy)"},
                         {"2*(qx*qy + qs*qz)", "(1 - 2*(qx^2 + qz^2))", "2*(qy*qz - qs*qx)"},
                         {"2*(qx*qz - qs*qy)", "2*(qy*qz + qs*qx)", "(1 - 2*(qx^2 + qy^2))"}};
  app::DrawingText d;
  d.coordinates = {"qs", "qx", "qy", "qz"};
  for (int corner = 0; corner < 8; ++corner) {
    const double c[3] = {(corner & 1 ? 1 : -1) * extent[0], (corner & 2 ? 1 : -1) * extent[1],
                         (corner & 4 ? 1 : -1) * extent[2]};
    std::vector<std::string> xyz;
    for (int row = 0; row < 3; ++row)
      xyz.push_back(std::string(r[row][0]) + "*" + app::drawing_number(c[0]) + " + " + r[row][1] + "*" +
                    app::drawing_number(c[1]) + " + " + r[row][2] + "*" + app::drawing_number(c[2]));
    d.points.push_back({"c" + std::to_string(corner), xyz});
  }
  for (int a = 0; a < 8; ++a)
    for (int bit = 1; bit < 8; bit <<= 1)
      if (!(a & bit)) d.links.emplace_back("c" + std::to_string(a), "c" + std::to_string(a | bit));
  return d;
}

app::SystemEntry rigid_body_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "rigid-body",
      "free rigid body in unit quaternions with the norm constraint (000 sec. 5.1); vi-midpoint is 000's "
      "eq. 5.8; default: inertia diag(1,2,3), q0 = 1, body rate (0,3,4)",
      "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{
            ParameterSpec::real("I1", 1.0, "principal moment of inertia 1", 1e-300),
            ParameterSpec::real("I2", 2.0, "principal moment of inertia 2", 1e-300),
            ParameterSpec::real("I3", 3.0, "principal moment of inertia 3", 1e-300),
            ParameterSpec::real("qs", 1.0, "initial quaternion, scalar part (q0 must be a unit quaternion)"),
            ParameterSpec::real("qx", 0.0, "initial quaternion, x"),
            ParameterSpec::real("qy", 0.0, "initial quaternion, y"),
            ParameterSpec::real("qz", 0.0, "initial quaternion, z"),
            ParameterSpec::real("wx", 0.0, "initial body angular velocity, x"),
            ParameterSpec::real("wy", 3.0, "initial body angular velocity, y"),
            ParameterSpec::real("wz", 4.0, "initial body angular velocity, z")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        const VecD<3> inertia(v.real("I1"), v.real("I2"), v.real("I3"));
        // Principal moments of a mass distribution satisfy I_i ≤ I_j + I_k (equality: a planar body).
        for (int i = 0; i < 3; ++i) {
          const double others = inertia[(i + 1) % 3] + inertia[(i + 2) % 3];
          if (inertia[i] > others * (1.0 + 1e-12))
            throw InvalidInput("I" + std::to_string(i + 1) + " = " + format_number(inertia[i]) +
                               " exceeds the sum of the other two principal moments (" + format_number(others) +
                               "): no rigid body has these moments of inertia (I_i <= I_j + I_k)");
        }
        app::Problem<RigidBody> p(RigidBody{inertia});
        // A start off the unit sphere by more than the manifold tolerance is refused by the integrator.
        p.q0 = VecD<4>(v.real("qs"), v.real("qx"), v.real("qy"), v.real("qz"));
        p.initial_data = RigidBody::velocity_from_body_rate(p.q0, VecD<3>(v.real("wx"), v.real("wy"), v.real("wz")));
        p.labels = {{"qs", "qx", "qy", "qz"}, {"Jx", "Jy", "Jz"}};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, rigid_body_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(rigid_body_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::RigidBody);
