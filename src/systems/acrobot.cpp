#include "app/drawing_helpers.hpp"
#include "app/system_entry.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/acrobot.hpp"

namespace mechint::systems {
namespace {

/// The two links hinged at the origin, th2 measured from link 1 (app/drawing_helpers.hpp).
app::DrawingText acrobot_drawing(const app::ParameterValues& v) {
  return app::planar_chain_drawing({"th1", "th2"}, {v.real("l1"), v.real("l2")});
}

app::SystemEntry acrobot_entry() {
  using app::ParameterSpec;
  auto e = app::make_system_entry(
      "acrobot",
      "two-link pendulum (Spong's acrobot), passive shoulder, elbow torque u1 (control); th1 from the downward "
      "vertical, th2 relative at the elbow; starts swing, rest, upright",
      "vi-midpoint",
      [](const app::Overrides&) {
        const Acrobot d;
        const auto& s = kAcrobotStarts[0];
        return std::vector<ParameterSpec>{
            ParameterSpec::real("m1", d.m1, "mass of link 1", 1e-300),
            ParameterSpec::real("m2", d.m2, "mass of link 2", 1e-300),
            ParameterSpec::real("l1", d.l1, "length of link 1", 1e-300),
            ParameterSpec::real("l2", d.l2, "length of link 2 (places the tip only)", 1e-300),
            ParameterSpec::real("lc1", d.lc1, "shoulder to centre of mass of link 1", 0.0),
            ParameterSpec::real("lc2", d.lc2, "elbow to centre of mass of link 2", 0.0),
            ParameterSpec::real("I1", d.i1, "moment of inertia of link 1 about its centre of mass", 0.0),
            ParameterSpec::real("I2", d.i2, "moment of inertia of link 2 about its centre of mass", 1e-300),
            ParameterSpec::real("g", d.gravity, "gravitational acceleration"),
            ParameterSpec::choice("start", {"swing", "rest", "upright"},
                                  "named start (th1, th2, dth1, dth2 override it)"),
            ParameterSpec::real("th1", s.th1, "initial angle of link 1 from the downward vertical"),
            ParameterSpec::real("th2", s.th2, "initial angle of link 2 relative to link 1"),
            ParameterSpec::real("dth1", s.dth1, "initial angular velocity of th1"),
            ParameterSpec::real("dth2", s.dth2, "initial angular velocity of th2")};
      },
      [](const app::ParameterValues& v, auto&& f) {
        app::Problem<Acrobot> p(Acrobot{.m1 = v.real("m1"),
                                        .m2 = v.real("m2"),
                                        .l1 = v.real("l1"),
                                        .l2 = v.real("l2"),
                                        .lc1 = v.real("lc1"),
                                        .lc2 = v.real("lc2"),
                                        .i1 = v.real("I1"),
                                        .i2 = v.real("I2"),
                                        .gravity = v.real("g")});
        const AcrobotStart* start = nullptr;
        for (const auto& s : kAcrobotStarts)
          if (v.choice("start") == s.name) start = &s;
        const auto pick = [&](const char* name, double named) { return v.was_set(name) ? v.real(name) : named; };
        p.q0 = VecD<2>(pick("th1", start->th1), pick("th2", start->th2));
        p.initial_data = VecD<2>(pick("dth1", start->dth1), pick("dth2", start->dth2));
        p.labels = {{"th1", "th2"}, {}};
        p.labels.periodic = {true, true};
        return f(p);
      });
  e.controls = app::numbered_controls(Acrobot::kNumControls);
  e.drawing = app::drawing_from_text(e.name, acrobot_drawing);
  return e;
}

MECHINT_REGISTER_SYSTEM(acrobot_entry);

}  // namespace
}  // namespace mechint::systems

// The kernels of its runs on the kernel path (app/builtin_kernels.hpp), compiled here once.
MECHINT_INSTANTIATE_MODEL_KERNELS(mechint::systems::Acrobot);
