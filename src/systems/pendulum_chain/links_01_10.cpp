#include "systems/pendulum_chain/make_chain.hpp"

namespace mechint::systems::chain {

Runner runner_01_10(int links) {
  static constexpr auto table = runners<1>(std::make_integer_sequence<int, 10>());
  return table[links - 1];
}

SessionMaker session_maker_01_10(int links) {
  static constexpr auto table = session_makers<1>(std::make_integer_sequence<int, 10>());
  return table[links - 1];
}

}  // namespace mechint::systems::chain
