// The drawings of the built-in systems (DESIGN §11): each a few points as expressions of the
// system's coordinates (its CSV columns), parameter values written in as exact numbers. Kept
// beside each other, apart from the systems' files, because a drawing needs only the output
// columns and the parameters — not the model type — and so costs no recompilation of a system.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "app/drawing.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

using Values = ParameterValues;

/// A parameter value as text that reads back exactly.
std::string num(double x) { return "(" + format_exact(x) + ")"; }

/// Planar chain hinged at the origin, angles from the downward vertical, each measured from the
/// previous link (the double pendulum, the acrobot, the pendulum chain): placed link by link
/// (DrawingText::Chain), so that a chain of any length draws in time linear in its links.
DrawingText planar_chain(const std::vector<std::string>& angles, const std::vector<double>& lengths) {
  DrawingText d;
  d.coordinates = angles;
  d.fixed.push_back({"pivot", {0.0, 0.0}});
  DrawingText::Chain chain{"pivot", angles, lengths, {}};
  std::string previous = "pivot";
  for (std::size_t i = 0; i < angles.size(); ++i) {
    const std::string name = "m" + std::to_string(i + 1);
    chain.names.push_back(name);
    d.links.emplace_back(previous, name);
    previous = name;
  }
  d.chain = std::move(chain);
  return d;
}

DrawingText double_pendulum(const Values& v) {
  DrawingText d = planar_chain({"th1", "th2"}, {v.real("l1"), v.real("l2")});
  if (v.integer("wall") == 1) {
    // φ = l1 s1 + l2 s12 + wall_offset ≥ 0: the wall is the vertical line x = −wall_offset.
    const double reach = v.real("l1") + v.real("l2");
    d.fixed.push_back({"wall_top", {-v.real("wall_offset"), 1.1 * reach}});
    d.fixed.push_back({"wall_bottom", {-v.real("wall_offset"), -1.1 * reach}});
    d.walls.push_back({"wall_top", "wall_bottom", "m2"});
  }
  return d;
}

DrawingText pendulum_chain(const Values& v) {
  std::vector<std::string> angles;
  for (int i = 1; i <= v.integer("links"); ++i) angles.push_back("th" + std::to_string(i));
  return planar_chain(angles, std::vector<double>(angles.size(), v.real("l")));
}

DrawingText cart_pole(const Values& v) {
  const std::string l = num(v.real("l"));
  DrawingText d;
  d.coordinates = {"x", "th"};
  d.points.push_back({"cart", {"x", "0"}});
  d.points.push_back({"bob", {"x + " + l + "*sin(th)", "-" + l + "*cos(th)"}});
  d.links.emplace_back("cart", "bob");
  d.fixed.push_back({"rail_left", {-3.0 * v.real("l"), 0.0}});
  d.fixed.push_back({"rail_right", {3.0 * v.real("l"), 0.0}});
  d.links.emplace_back("rail_left", "rail_right");
  return d;
}

DrawingText damped_pendulum(const Values& v) { return planar_chain({"th"}, {v.real("l")}); }

DrawingText spherical_pendulum(const Values& v) {
  DrawingText d;
  d.fixed.push_back({"pivot", {0.0, 0.0, 0.0}});
  if (v.choice("coordinates") == "cartesian") {
    d.coordinates = {"x", "y", "z"};
    d.points.push_back({"bob", {"x", "y", "z"}});
  } else {
    const std::string l = num(v.real("l"));
    d.coordinates = {"theta", "phi"};
    d.points.push_back({"bob", {l + "*sin(theta)*cos(phi)", l + "*sin(theta)*sin(phi)", "-" + l + "*cos(theta)"}});
  }
  d.links.emplace_back("pivot", "bob");
  return d;
}

DrawingText double_spherical_pendulum(const Values&) {
  DrawingText d;
  d.coordinates = {"x1", "y1", "z1", "x2", "y2", "z2"};
  d.fixed.push_back({"pivot", {0.0, 0.0, 0.0}});
  d.points.push_back({"m1", {"x1", "y1", "z1"}});
  d.points.push_back({"m2", {"x2", "y2", "z2"}});
  d.links = {{"pivot", "m1"}, {"m1", "m2"}};
  return d;
}

/// A body about a centre at the origin (Kepler, the low-thrust spacecraft).
DrawingText orbit(const Values&) {
  DrawingText d;
  d.coordinates = {"x", "y"};
  d.fixed.push_back({"centre", {0.0, 0.0}});
  d.points.push_back({"body", {"x", "y"}});
  return d;
}

DrawingText three_body(const Values& v) {
  const double mu = v.real("mu");
  DrawingText d;
  d.coordinates = {"x", "y"};
  d.fixed.push_back({"primary1", {-mu, 0.0}});
  d.fixed.push_back({"primary2", {1.0 - mu, 0.0}});
  d.points.push_back({"body", {"x", "y"}});
  return d;
}

/// The free rigid body as the box whose principal moments are I1, I2, I3 (a uniform box of sides
/// a, b, c has I1 ∝ b² + c², ...), turned by R(q) of the unit quaternion q = (qs, qx, qy, qz).
DrawingText rigid_body(const Values& v) {
  const double i1 = v.real("I1"), i2 = v.real("I2"), i3 = v.real("I3");
  const auto half = [&](double a, double b, double c) { return std::sqrt(std::max(0.5 * (b + c - a), 0.05 * (a + b + c))); };
  double extent[3] = {half(i1, i2, i3), half(i2, i1, i3), half(i3, i1, i2)};
  const double largest = std::max({extent[0], extent[1], extent[2]});
  for (double& e : extent) e /= largest;  // the longest half-side is 1
  // Rows of R(q).
  const char* r[3][3] = {{"(1 - 2*(qy^2 + qz^2))", "2*(qx*qy - qs*qz)", "2*(qx*qz + qs*qy)"},
                         {"2*(qx*qy + qs*qz)", "(1 - 2*(qx^2 + qz^2))", "2*(qy*qz - qs*qx)"},
                         {"2*(qx*qz - qs*qy)", "2*(qy*qz + qs*qx)", "(1 - 2*(qx^2 + qy^2))"}};
  DrawingText d;
  d.coordinates = {"qs", "qx", "qy", "qz"};
  for (int corner = 0; corner < 8; ++corner) {
    const double c[3] = {(corner & 1 ? 1 : -1) * extent[0], (corner & 2 ? 1 : -1) * extent[1],
                         (corner & 4 ? 1 : -1) * extent[2]};
    std::vector<std::string> xyz;
    for (int row = 0; row < 3; ++row)
      xyz.push_back(std::string(r[row][0]) + "*" + num(c[0]) + " + " + r[row][1] + "*" + num(c[1]) + " + " + r[row][2] +
                    "*" + num(c[2]));
    d.points.push_back({"c" + std::to_string(corner), xyz});
  }
  for (int a = 0; a < 8; ++a)
    for (int bit = 1; bit < 8; bit <<= 1)
      if (!(a & bit)) d.links.emplace_back("c" + std::to_string(a), "c" + std::to_string(a | bit));
  return d;
}

/// A mass on a line, tied to the origin (the oscillators).
DrawingText oscillator(const Values&) {
  DrawingText d;
  d.coordinates = {"q"};
  d.fixed.push_back({"anchor", {0.0, 0.0}});
  d.points.push_back({"mass", {"q", "0"}});
  d.links.emplace_back("anchor", "mass");
  return d;
}

/// A ball above the floor q = 0 (004 §III-C).
DrawingText point_mass_wall(const Values&) {
  DrawingText d;
  d.coordinates = {"q"};
  d.points.push_back({"ball", {"0", "q"}});
  d.fixed.push_back({"floor_left", {-1.0, 0.0}});
  d.fixed.push_back({"floor_right", {1.0, 0.0}});
  d.walls.push_back({"floor_left", "floor_right", "ball"});
  return d;
}

/// The Chaplygin sleigh from above: its centre of mass (x, y), the knife edge a behind it along the
/// heading, and a nose as far ahead.
DrawingText chaplygin_sleigh(const Values& v) {
  const std::string a = num(std::max(std::abs(v.real("a")), 0.1));
  DrawingText d;
  d.coordinates = {"x", "y", "theta"};
  d.points.push_back({"knife_edge", {"x - " + a + "*cos(theta)", "y - " + a + "*sin(theta)"}});
  d.points.push_back({"centre", {"x", "y"}});
  d.points.push_back({"nose", {"x + " + a + "*cos(theta)", "y + " + a + "*sin(theta)"}});
  d.links = {{"knife_edge", "centre"}, {"centre", "nose"}};
  return d;
}

/// The rolling disk in 3D: the contact point (x, y, 0), the centre R above it, and a point of the
/// rim at the rolling angle φ in the disk's vertical plane along the heading θ.
DrawingText rolling_disk(const Values& v) {
  const std::string r = num(v.real("R"));
  DrawingText d;
  d.coordinates = {"x", "y", "theta", "phi"};
  d.points.push_back({"contact", {"x", "y", "0"}});
  d.points.push_back({"centre", {"x", "y", r}});
  d.points.push_back({"rim", {"x + " + r + "*sin(phi)*cos(theta)", "y + " + r + "*sin(phi)*sin(theta)",
                              r + " + " + r + "*cos(phi)"}});
  d.links = {{"contact", "centre"}, {"centre", "rim"}};
  return d;
}

}  // namespace

std::optional<DrawingText> builtin_drawing(const std::string& system, const ParameterValues& values) {
  static const std::map<std::string, std::function<DrawingText(const Values&)>> kDrawings = {
      {"acrobot", [](const Values& v) { return planar_chain({"th1", "th2"}, {v.real("l1"), v.real("l2")}); }},
      {"cart-pole", cart_pole},
      {"chaplygin-sleigh", chaplygin_sleigh},
      {"damped-oscillator", oscillator},
      {"damped-pendulum", damped_pendulum},
      {"double-pendulum", double_pendulum},
      {"double-spherical-pendulum", double_spherical_pendulum},
      {"harmonic-oscillator", oscillator},
      {"kepler", orbit},
      {"low-thrust-spacecraft", orbit},
      {"pendulum-chain", pendulum_chain},
      {"point-mass-wall", point_mass_wall},
      {"rolling-disk", rolling_disk},
      {"rigid-body", rigid_body},
      {"spherical-pendulum", spherical_pendulum},
      {"three-body", three_body},
  };
  const auto it = kDrawings.find(system);
  if (it == kDrawings.end()) return std::nullopt;
  return it->second(values);
}

}  // namespace mechint::app
