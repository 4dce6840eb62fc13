#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/cart_pole.hpp"

namespace mechint::systems {
namespace {

/// The cart on its rail (a plain line three lengths either side of the origin), the bob on its rod.
app::DrawingText cart_pole_drawing(const app::ParameterValues& v) {
  const std::string l = app::drawing_number(v.real("l"));
  app::DrawingText d;
  d.coordinates = {"x", "th"};
  d.points.push_back({"cart", {"x", "0"}});
  d.points.push_back({"bob", {"x + " + l + "*sin(th)", "-" + l + "*cos(th)"}});
  d.links.emplace_back("cart", "bob");
  d.fixed.push_back({"rail_left", {-3.0 * v.real("l"), 0.0}});
  d.fixed.push_back({"rail_right", {3.0 * v.real("l"), 0.0}});
  d.links.emplace_back("rail_left", "rail_right");
  return d;
}

app::SystemEntry cart_pole_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "cart-pole",
      "cart on a rail with a pendulum, horizontal force u1 on the cart (control); px, the cart-rail momentum, "
      "changes by the impulse of u1 (px_work)",
      "vi-midpoint",
      [](const app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("M", 1.0, "mass of the cart", 1e-300),
                                          ParameterSpec::real("m", 0.3, "mass of the pendulum bob", 1e-300),
                                          ParameterSpec::real("l", 0.5, "length of the pendulum", 1e-300),
                                          ParameterSpec::real("g", 9.81, "gravitational acceleration"),
                                          ParameterSpec::real("x", 0.0, "initial cart position"),
                                          ParameterSpec::real("th", 0.5, "initial angle from the downward vertical"),
                                          ParameterSpec::real("vx", 0.0, "initial cart velocity"),
                                          ParameterSpec::real("dth", 0.0, "initial angular velocity")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<CartPole> p(CartPole{v.real("M"), v.real("m"), v.real("l"), v.real("g")});
        p.q0 = VecD<2>(v.real("x"), v.real("th"));
        p.initial_data = VecD<2>(v.real("vx"), v.real("dth"));
        // The Noether momentum of translation along the rail: the horizontal momentum of cart and bob.
        p.labels = {{"x", "th"}, {"px"}};
        p.labels.periodic = {false, true};
        return f(p);
      });
  e.controls = app::numbered_controls(CartPole::kNumControls);
  e.drawing = app::drawing_from_text(e.name, cart_pole_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(cart_pole_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::CartPole);
