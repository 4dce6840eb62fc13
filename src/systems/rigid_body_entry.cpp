#include <cmath>

#include "app/variational_simulation.hpp"
#include "mechint/systems/rigid_body.hpp"
#include "systems/entries.hpp"

namespace mechint::systems {

app::SystemEntry rigid_body_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "rigid-body";
  e.summary =
      "free rigid body in unit quaternions with the norm constraint (000 sec. 5.1); vi-midpoint is 000's "
      "eq. 5.8; default: inertia diag(1,2,3), q0 = 1, body rate (0,3,4)";
  e.methods = {"vi-midpoint", "vi-trapezoid", "vi-first-order"};
  e.parameters = [](const auto&) {
    return join({ParameterSpec::real("I1", 1.0, "principal moment of inertia 1", 1e-300),
                 ParameterSpec::real("I2", 2.0, "principal moment of inertia 2", 1e-300),
                 ParameterSpec::real("I3", 3.0, "principal moment of inertia 3", 1e-300),
                 ParameterSpec::real("qs", 1.0, "initial quaternion, scalar part (q0 must be a unit quaternion)"),
                 ParameterSpec::real("qx", 0.0, "initial quaternion, x"),
                 ParameterSpec::real("qy", 0.0, "initial quaternion, y"),
                 ParameterSpec::real("qz", 0.0, "initial quaternion, z"),
                 ParameterSpec::real("wx", 0.0, "initial body angular velocity, x"),
                 ParameterSpec::real("wy", 3.0, "initial body angular velocity, y"),
                 ParameterSpec::real("wz", 4.0, "initial body angular velocity, z")},
                app::integrator_parameters());
  };
  e.make = [](const app::ParameterValues& v, const std::string& method) -> std::unique_ptr<app::Simulation> {
    const RigidBody body{VecD<3>(v.real("I1"), v.real("I2"), v.real("I3"))};
    const VecD<4> q0(v.real("qs"), v.real("qx"), v.real("qy"), v.real("qz"));
    // A start off the unit sphere by more than the manifold tolerance is refused by the integrator.
    const VecD<4> qdot0 = RigidBody::velocity_from_body_rate(q0, VecD<3>(v.real("wx"), v.real("wy"), v.real("wz")));
    app::OutputLabels labels{{"qs", "qx", "qy", "qz"}, {"Jx", "Jy", "Jz"}};
    const app::StartSettings start = app::read_start_settings(v);
    if (method == "vi-midpoint")  // 000 eq. 5.8 (the midpoint rule of L restricted to S³)
      return std::make_unique<app::VariationalSimulation<RigidBodyQuaternionSystem>>(
          RigidBodyQuaternionSystem(body), labels, q0, qdot0, start);
    return app::make_variational_simulation(body, labels, q0, qdot0, start, method);
  };
  return e;
}

}  // namespace mechint::systems
