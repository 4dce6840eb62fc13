#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/three_body.hpp"

namespace mechint::systems {
namespace {

/// The body in the rotating frame, the two primaries fixed at -mu and 1 - mu on the x axis.
app::DrawingText three_body_drawing(const app::ParameterValues& v) {
  const double mu = v.real("mu");
  app::DrawingText d;
  d.coordinates = {"x", "y"};
  d.fixed.push_back({"primary1", {-mu, 0.0}});
  d.fixed.push_back({"primary2", {1.0 - mu, 0.0}});
  d.points.push_back({"body", {"x", "y"}});
  return d;
}

app::SystemEntry three_body_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "three-body",
      "planar circular restricted three-body problem, rotating frame (001 sec. 5); default: Earth-Moon "
      "mu, a bounded orbit around the Earth inside its zero-velocity curve",
      "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{
            ParameterSpec::real("mu", ThreeBody{}.mu, "mass parameter of the second primary", 0.0, 0.5),
            ParameterSpec::real("collision_radius", 1e-6, "a run stops with an error closer than this to a primary",
                                0.0, 0.5),
            ParameterSpec::real("time_scale_power", 1.5,
                                "alpha of adapt=sundman's time scale s = (r1^-2 + r2^-2)^(-alpha/2)", 0.0, 3.0),
            ParameterSpec::real("x", 0.5, "initial x (rotating frame)"),
            ParameterSpec::real("y", 0.0, "initial y"),
            ParameterSpec::real("vx", 0.0, "initial x velocity (rotating frame)"),
            ParameterSpec::real("vy", 0.9, "initial y velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<ThreeBody> p(ThreeBody{v.real("mu"), v.real("collision_radius"), v.real("time_scale_power")});
        p.q0 = VecD<2>(v.real("x"), v.real("y"));
        try {
          p.model.validate_configuration(p.q0, 0.0);
        } catch (const DomainError& e) {
          throw InvalidStart(std::string("start: ") + e.what());
        }
        p.initial_data = VecD<2>(v.real("vx"), v.real("vy"));
        p.labels = {{"x", "y"}, {}};
        p.labels.velocities = {"vx", "vy"};
        p.labels.energy_column = "jacobi";
        p.labels.energy_factor = -2.0;  // C = −2E for this Lagrangian
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, three_body_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(three_body_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::ThreeBody);
