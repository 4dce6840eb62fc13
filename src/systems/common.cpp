#include "systems/entries.hpp"

namespace mechint::systems {

std::vector<app::ParameterSpec> join(std::vector<app::ParameterSpec> a,
                                     const std::vector<app::ParameterSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> variational_methods() {
  return {"vi-midpoint", "vi-trapezoid", "vi-first-order"};
}

}  // namespace mechint::systems
