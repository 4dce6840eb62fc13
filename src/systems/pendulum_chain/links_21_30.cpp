#include "systems/pendulum_chain/make_chain.hpp"

namespace mechint::systems::chain {

Runner runner_21_30(int links) {
  static constexpr auto table = runners<21>(std::make_integer_sequence<int, 10>());
  return table[links - 21];
}

SessionMaker session_maker_21_30(int links) {
  static constexpr auto table = session_makers<21>(std::make_integer_sequence<int, 10>());
  return table[links - 21];
}

}  // namespace mechint::systems::chain
