#include "systems/pendulum_chain/make_chain.hpp"

namespace mechint::systems::chain {

Runner runner_11_20(int links) {
  static constexpr auto table = runners<11>(std::make_integer_sequence<int, 10>());
  return table[links - 11];
}

SessionMaker session_maker_11_20(int links) {
  static constexpr auto table = session_makers<11>(std::make_integer_sequence<int, 10>());
  return table[links - 11];
}

}  // namespace mechint::systems::chain
