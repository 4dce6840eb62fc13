#include "model_file/chain_model_text.hpp"

namespace mechint::model_file {

std::string pendulum_chain_model_text(int links) {
  std::string coordinates, lagrangian, definitions;
  for (int i = 1; i <= links; ++i) {
    const std::string k = std::to_string(i), before = std::to_string(i - 1);
    coordinates += std::string(i > 1 ? ", " : "") + "\"p" + k + "\"";
    lagrangian += std::string(i > 1 ? " + " : "") + "0.5*m*(x" + k + "_dot^2 + y" + k + "_dot^2) - m*g*y" + k;
    definitions += "x" + k + " = \"" + (i > 1 ? "x" + before + " + " : "") + "l*sin(p" + k + ")\"\n";
    definitions += "y" + k + " = \"" + (i > 1 ? "y" + before + " - " : "-") + "l*cos(p" + k + ")\"\n";
  }
  return "name = \"chain\"\ncoordinates = [" + coordinates + "]\nparameters = { m = 1.0, l = 1.0, g = 9.81 }\n" +
         "lagrangian = \"" + lagrangian + "\"\n[initial]\np1 = 0.7853981633974483\n[definitions]\n" + definitions;
}

}  // namespace mechint::model_file
