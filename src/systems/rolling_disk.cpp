/// The vertical rolling disk (DESIGN §10; docs/nonholonomic.md): a disk rolling upright without
/// slipping on the plane, through hand-derived kernels (src/kernel/nonholonomic_kernels.cpp) and the
/// discrete Lagrange–d'Alembert integrator (kernel/nonholonomic_integrator.hpp).
#include <cmath>

#include "app/drawing_helpers.hpp"
#include "app/kernel_methods.hpp"
#include "app/system_entry.hpp"
#include "kernel/nonholonomic_kernels.hpp"

namespace mechint::systems {
namespace {

/// The start from the rates θ̇ and φ̇: the contact point's velocity follows from the constraints
/// ẋ = R cos θ φ̇, ẏ = R sin θ φ̇, so every start is admissible.
app::KernelProblem disk_problem(const app::ParameterValues& v) {
  app::KernelProblem p;
  const double r = v.real("R"), theta = v.real("theta"), rolling = v.real("phi_dot");
  p.model = std::make_shared<const kernel::KernelModel>(
      kernel::rolling_disk_model(v.real("m"), r, v.real("I"), v.real("J")));
  p.q0 = Eigen::Vector4d(v.real("x"), v.real("y"), theta, v.real("phi"));
  p.qdot0 = Eigen::Vector4d(r * std::cos(theta) * rolling, r * std::sin(theta) * rolling, v.real("theta_dot"), rolling);
  p.labels.coordinates = {"x", "y", "theta", "phi"};
  p.labels.velocities = {"x_dot", "y_dot", "theta_dot", "phi_dot"};
  p.labels.momenta = {"Jtheta"};
  return p;
}

/// The rolling disk in 3D: the contact point (x, y, 0), the centre R above it, and a point of the
/// rim at the rolling angle φ in the disk's vertical plane along the heading θ.
app::DrawingText rolling_disk_drawing(const app::ParameterValues& v) {
  const std::string r = app::drawing_number(v.real("R"));
  app::DrawingText d;
  d.coordinates = {"x", "y", "theta", "phi"};
  d.points.push_back({"contact", {"x", "y", "0"}});
  d.points.push_back({"centre", {"x", "y", r}});
  d.points.push_back({"rim", {"x + " + r + "*sin(phi)*cos(theta)", "y + " + r + "*sin(phi)*sin(theta)",
                              r + " + " + r + "*cos(phi)"}});
  d.links = {{"contact", "centre"}, {"centre", "rim"}};
  return d;
}

app::SystemEntry rolling_disk_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "rolling-disk";
  e.summary =
      "vertical disk rolling without slipping on the plane (nonholonomic: x' = R cos(th) phi', y' = R sin(th) "
      "phi'); discrete Lagrange-d'Alembert";
  e.default_method = "vi-midpoint";
  e.parameters = [](const app::Overrides&) {
    return std::vector<ParameterSpec>{
        ParameterSpec::real("m", 1.0, "mass", 1e-300),
        ParameterSpec::real("R", 1.0, "radius", 1e-300),
        ParameterSpec::real("I", 0.25, "moment of inertia about the vertical (heading)", 1e-300),
        ParameterSpec::real("J", 0.5, "moment of inertia about the axle (rolling)", 1e-300),
        ParameterSpec::real("x", 0.0, "initial x of the contact point"),
        ParameterSpec::real("y", 0.0, "initial y of the contact point"),
        ParameterSpec::real("theta", 0.0, "initial heading"),
        ParameterSpec::real("phi", 0.0, "initial rolling angle"),
        ParameterSpec::real("theta_dot", 1.0, "initial heading rate"),
        ParameterSpec::real("phi_dot", 2.0, "initial rolling rate")};
  };
  const auto model = [] { return kernel::rolling_disk_model(1.0, 1.0, 0.25, 0.5); };
  e.methods = [model](const app::ParameterValues&) { return methods::offered_methods(methods::structure_of(model())); };
  e.method_options = [model](const app::ParameterValues&, const std::string& method) {
    return methods::method_options(methods::structure_of(model()), method);
  };
  e.run = [](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
             const OutputSchedule& schedule, const app::ControlSchedule& controls, app::RowWriter& out) {
    app::run_kernel_problem(disk_problem(v), method, options, schedule, out, controls);
  };
  e.stepping = [](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
                  double h, const app::ControlSchedule& controls) {
    return app::make_kernel_stepping_session(disk_problem(v), method, options, h, controls);
  };
  e.optimize = [](const app::ParameterValues&, const app::OptimalControlSpec& spec, const std::vector<std::string>&)
      -> app::OptimizeOutcome {
    spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
  };
  e.drawing = app::drawing_from_text(e.name, rolling_disk_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(rolling_disk_entry);

}  // namespace
}  // namespace mechint::systems
