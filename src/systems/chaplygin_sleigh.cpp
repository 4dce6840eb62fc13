/// The Chaplygin sleigh (DESIGN §10; docs/nonholonomic.md): a rigid body in the plane on a knife edge
/// that cannot slide sideways, through hand-derived kernels (src/kernel/nonholonomic_kernels.cpp) and
/// the discrete Lagrange–d'Alembert integrator (kernel/nonholonomic_integrator.hpp).
#include <algorithm>
#include <cmath>

#include "app/drawing_helpers.hpp"
#include "app/kernel_methods.hpp"
#include "app/system_entry.hpp"
#include "kernel/nonholonomic_kernels.hpp"

namespace mechint::systems {
namespace {

/// The start from the body velocities: forward speed v along the heading and turning rate ω; the
/// sideways speed of the centre of mass is then a ω (the constraint), so every start is admissible.
app::KernelProblem sleigh_problem(const app::ParameterValues& v) {
  app::KernelProblem p;
  const double a = v.real("a"), theta = v.real("theta"), speed = v.real("v"), omega = v.real("omega");
  p.model = std::make_shared<const kernel::KernelModel>(kernel::chaplygin_sleigh_model(v.real("m"), v.real("I"), a));
  p.q0 = Eigen::Vector3d(v.real("x"), v.real("y"), theta);
  p.qdot0 = Eigen::Vector3d(speed * std::cos(theta) - a * omega * std::sin(theta),
                            speed * std::sin(theta) + a * omega * std::cos(theta), omega);
  p.labels.coordinates = {"x", "y", "theta"};
  p.labels.velocities = {"x_dot", "y_dot", "theta_dot"};
  return p;
}

/// The Chaplygin sleigh from above: its centre of mass (x, y), the knife edge a behind it along the
/// heading, and a nose as far ahead.
app::DrawingText chaplygin_sleigh_drawing(const app::ParameterValues& v) {
  const std::string a = app::drawing_number(std::max(std::abs(v.real("a")), 0.1));
  app::DrawingText d;
  d.coordinates = {"x", "y", "theta"};
  d.points.push_back({"knife_edge", {"x - " + a + "*cos(theta)", "y - " + a + "*sin(theta)"}});
  d.points.push_back({"centre", {"x", "y"}});
  d.points.push_back({"nose", {"x + " + a + "*cos(theta)", "y + " + a + "*sin(theta)"}});
  d.links = {{"knife_edge", "centre"}, {"centre", "nose"}};
  return d;
}

app::SystemEntry chaplygin_sleigh_entry() {
  using app::ParameterSpec;
  app::SystemEntry e;
  e.name = "chaplygin-sleigh";
  e.summary =
      "Chaplygin sleigh: a body on a knife edge at distance a behind its centre of mass (nonholonomic, "
      "-sin(th) x' + cos(th) y' - a th' = 0); discrete Lagrange-d'Alembert";
  e.default_method = "vi-midpoint";
  e.parameters = [](const app::Overrides&) {
    return std::vector<ParameterSpec>{
        ParameterSpec::real("m", 1.0, "mass", 1e-300),
        ParameterSpec::real("I", 1.0, "moment of inertia about the centre of mass", 1e-300),
        ParameterSpec::real("a", 0.5, "distance of the knife edge behind the centre of mass"),
        ParameterSpec::real("x", 0.0, "initial x of the centre of mass"),
        ParameterSpec::real("y", 0.0, "initial y of the centre of mass"),
        ParameterSpec::real("theta", 0.0, "initial heading"),
        ParameterSpec::real("v", 1.0, "initial forward speed of the centre of mass along the heading"),
        ParameterSpec::real("omega", 1.0, "initial turning rate theta_dot")};
  };
  const auto model = [] { return kernel::chaplygin_sleigh_model(1.0, 1.0, 0.5); };
  e.methods = [model](const app::ParameterValues&) { return methods::offered_methods(methods::structure_of(model())); };
  e.method_options = [model](const app::ParameterValues&, const std::string& method) {
    return methods::method_options(methods::structure_of(model()), method);
  };
  e.run = [](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
             const OutputSchedule& schedule, const app::ControlSchedule& controls, app::RowWriter& out) {
    app::run_kernel_problem(sleigh_problem(v), method, options, schedule, out, controls);
  };
  e.stepping = [](const app::ParameterValues& v, const std::string& method, const app::ParameterValues& options,
                  double h, const app::ControlSchedule& controls) {
    return app::make_kernel_stepping_session(sleigh_problem(v), method, options, h, controls);
  };
  e.optimize = [](const app::ParameterValues&, const app::OptimalControlSpec& spec, const std::vector<std::string>&)
      -> app::OptimizeOutcome {
    spec.fail(spec.model_where, "the system has no control inputs: there is nothing to optimize");
  };
  e.drawing = app::drawing_from_text(e.name, chaplygin_sleigh_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(chaplygin_sleigh_entry);

}  // namespace
}  // namespace mechint::systems
