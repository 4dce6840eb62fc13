#include "systems/pendulum_chain/make_chain.hpp"

namespace mechint::systems::chain {

Factory factory_11_20(int links) {
  static constexpr auto table = factories<11>(std::make_integer_sequence<int, 10>());
  return table[links - 11];
}

}  // namespace mechint::systems::chain
