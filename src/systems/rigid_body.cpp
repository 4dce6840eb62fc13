#include <string>

#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/systems/rigid_body.hpp"

namespace mechint::systems {
namespace {

app::SystemEntry rigid_body_entry() {
  using app::ParameterSpec;
  return app::make_system_entry(
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
}

MECHINT_REGISTER_SYSTEM(rigid_body_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::RigidBody);
