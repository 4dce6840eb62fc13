#include "app/drawing_helpers.hpp"

#include <utility>

#include "mechint/core/format.hpp"

namespace mechint::app {

std::string drawing_number(double x) { return "(" + format_exact(x) + ")"; }

DrawingText planar_chain_drawing(const std::vector<std::string>& angles, const std::vector<double>& lengths) {
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

DrawingText orbit_drawing() {
  DrawingText d;
  d.coordinates = {"x", "y"};
  d.fixed.push_back({"centre", {0.0, 0.0}});
  d.points.push_back({"body", {"x", "y"}});
  return d;
}

DrawingText oscillator_drawing() {
  DrawingText d;
  d.coordinates = {"q"};
  d.fixed.push_back({"anchor", {0.0, 0.0}});
  d.points.push_back({"mass", {"q", "0"}});
  d.links.emplace_back("anchor", "mass");
  return d;
}

std::function<Drawing(const ParameterValues& values)> drawing_from_text(
    std::string system, std::function<DrawingText(const ParameterValues& values)> describe) {
  return [system = std::move(system), describe = std::move(describe)](const ParameterValues& values) {
    return Drawing::from_text(describe(values), "the drawing of " + system);
  };
}

}  // namespace mechint::app
