#include "model_file/chain_model_text.hpp"

#include <charconv>
#include <cmath>
#include <numbers>

namespace mechint::model_file {
namespace {

/// The shortest text that reads back as x.
std::string number(double x) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
  return std::string(buffer, end);
}

const std::string kHead = "parameters = { m = 1.0, l = 1.0, g = 9.81 }\n";

}  // namespace

std::string pendulum_chain_model_text(int links) {
  std::string coordinates, lagrangian, definitions;
  for (int i = 1; i <= links; ++i) {
    const std::string k = std::to_string(i), before = std::to_string(i - 1);
    coordinates += std::string(i > 1 ? ", " : "") + "\"p" + k + "\"";
    lagrangian += std::string(i > 1 ? " + " : "") + "0.5*m*(x" + k + "_dot^2 + y" + k + "_dot^2) - m*g*y" + k;
    definitions += "x" + k + " = \"" + (i > 1 ? "x" + before + " + " : "") + "l*sin(p" + k + ")\"\n";
    definitions += "y" + k + " = \"" + (i > 1 ? "y" + before + " - " : "-") + "l*cos(p" + k + ")\"\n";
  }
  return "name = \"chain\"\ncoordinates = [" + coordinates + "]\n" + kHead + "lagrangian = \"" + lagrangian +
         "\"\n[initial]\np1 = 0.7853981633974483\n[definitions]\n" + definitions;
}

std::string relative_chain_model_text(int links) {
  std::string coordinates, kinetic, potential, definitions;
  for (int i = 1; i <= links; ++i) {
    const std::string k = std::to_string(i), before = std::to_string(i - 1);
    coordinates += std::string(i > 1 ? ", " : "") + "\"th" + k + "\"";
    kinetic += std::string(i > 1 ? " + " : "") + "x" + k + "_dot^2 + y" + k + "_dot^2";
    potential += std::string(i > 1 ? " + " : "") + "y" + k;
    definitions += "a" + k + " = \"" + (i > 1 ? "a" + before + " + " : "") + "th" + k + "\"\n";
    definitions += "x" + k + " = \"" + (i > 1 ? "x" + before + " + " : "") + "l*sin(a" + k + ")\"\n";
    definitions += "y" + k + " = \"" + (i > 1 ? "y" + before + " - " : "-") + "l*cos(a" + k + ")\"\n";
  }
  return "name = \"relative-chain\"\ncoordinates = [" + coordinates + "]\n" + kHead + "lagrangian = \"0.5*m*(" +
         kinetic + ") - m*g*(" + potential + ")\"\n[initial]\nth1 = 0.7853981633974483\n[definitions]\n" + definitions;
}

std::string cartesian_chain_model_text(int links) {
  std::string coordinates, kinetic, potential, constraints, initial;
  const double s = std::sin(std::numbers::pi / 4), c = std::cos(std::numbers::pi / 4);
  for (int i = 1; i <= links; ++i) {
    const std::string k = std::to_string(i), before = std::to_string(i - 1);
    coordinates += std::string(i > 1 ? ", " : "") + "\"x" + k + "\", \"y" + k + "\"";
    kinetic += std::string(i > 1 ? " + " : "") + "x" + k + "_dot^2 + y" + k + "_dot^2";
    potential += std::string(i > 1 ? " + " : "") + "y" + k;
    constraints += std::string(i > 1 ? ", " : "") + "\"" +
                   (i > 1 ? "(x" + k + " - x" + before + ")^2 + (y" + k + " - y" + before + ")^2" : "x1^2 + y1^2") +
                   " - l^2\"";
    initial += "x" + k + " = " + number(i * s) + "\ny" + k + " = " + number(-i * c) + "\n";
  }
  return "name = \"cartesian-chain\"\ncoordinates = [" + coordinates + "]\n" + kHead + "lagrangian = \"0.5*m*(" +
         kinetic + ") - m*g*(" + potential + ")\"\nconstraints = [" + constraints + "]\n[initial]\n" + initial;
}

}  // namespace mechint::model_file
