#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/point_mass_wall.hpp"

namespace mechint::systems {
namespace {

/// A ball above the floor q = 0 (004 §III-C).
app::DrawingText point_mass_wall_drawing(const app::ParameterValues&) {
  app::DrawingText d;
  d.coordinates = {"q"};
  d.points.push_back({"ball", {"0", "q"}});
  d.fixed.push_back({"floor_left", {-1.0, 0.0}});
  d.fixed.push_back({"floor_right", {1.0, 0.0}});
  d.walls.push_back({"floor_left", "floor_right", "ball"});
  return d;
}

app::SystemEntry point_mass_wall_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "point-mass-wall",
      "point mass L = qdot^2/2 - q bouncing on the floor phi = q >= 0 (004 §III-C), --set impact=mhc|ctec|dtec",
      "vi-trapezoid",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("q", 1.0, "initial height"),
                                          ParameterSpec::real("p", 0.0, "initial momentum")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<PointMassWall> p;
        p.q0 = VecD<1>(v.real("q"));
        if (!(p.q0[0] >= 0.0))
          throw InvalidStart("point-mass-wall: the start is below the floor, phi(q0) = q0 = " +
                             format_number(p.q0[0]) + " < 0");
        p.initial_data = VecD<1>(v.real("p"));
        p.initial = app::InitialData::kMomentum;
        p.labels = {{"q"}, {}};
        p.labels.canonical_momenta = {"p"};
        return f(p);
      });
  e.drawing = app::drawing_from_text(e.name, point_mass_wall_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(point_mass_wall_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::PointMassWall);
