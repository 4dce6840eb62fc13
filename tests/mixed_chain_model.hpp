#pragma once
// A planar chain of n links in relative angles (each link's angle from the one before, positions
// from the previous mass) written as a model file, with terms of every kind of operation on its
// positions and velocities: the branches of abs and max, powers, quotients. Large enough from a
// few links that L's Hessian is computed by tangents (kernel_codegen.cpp, hessian_by_tangents).
// Used by tests/test_kernel_codegen.cpp and tests/test_model_file_step_midpoint.cpp.
#include <string>

inline std::string mixed_chain_model_text(int n, const std::string& name) {
  std::string coordinates, lagrangian, definitions;
  for (int i = 1; i <= n; ++i) {
    const std::string k = std::to_string(i), before = std::to_string(i - 1);
    coordinates += std::string(i > 1 ? ", " : "") + "\"th" + k + "\"";
    lagrangian += std::string(i > 1 ? " + " : "") + "0.5*m*(x" + k + "_dot^2 + y" + k + "_dot^2) - m*g*y" + k +
                  " + 0.01*sqrt(1 + x" + k + "^2) - 0.001*exp(-y" + k + "^2) + 0.01*atan2(y" + k + ", 3 + x" + k + ")" +
                  " - 0.001*abs(x" + k + ")*max(x" + k + ", y" + k + ") + 0.01/(2 + cos(a" + k + "))" +
                  " + 0.001*(1.5 + sin(a" + k + "))^-1.5 + 0.001*log(2 + x" + k + "_dot^2*a" + k + "_dot^2)";
    definitions += "a" + k + " = \"" + (i > 1 ? "a" + before + " + " : "") + "th" + k + "\"\n";
    definitions += "x" + k + " = \"" + (i > 1 ? "x" + before + " + " : "") + "l*sin(a" + k + ")\"\n";
    definitions += "y" + k + " = \"" + (i > 1 ? "y" + before + " - " : "-") + "l*cos(a" + k + ")\"\n";
  }
  return "name = \"" + name + "\"\ncoordinates = [" + coordinates + "]\nparameters = { m = 1.0, l = 1.0, g = 9.81 }\n" +
         "lagrangian = \"" + lagrangian + "\"\n[initial]\nth1 = 0.5\nth2 = -0.3\nth1_dot = 0.2\n[definitions]\n" + definitions;
}
