#pragma once
/// \file
/// Which variables a variational integrator carries from step to step (000 §3.2): the momentum form
/// steps (q_k, p_k) by the discrete Legendre transforms, the position form steps (q_{k−1}, q_k) by the
/// discrete Euler–Lagrange equations. Both give the same discrete flow up to round-off.

namespace mechint {

enum class DelForm {
  kMomentum,  ///< (q_k, p_k), p_{k+1} = D2 Ld(q_k, q_{k+1})
  kPosition,  ///< (q_{k−1}, q_k), p_k recomputed each step
};

}  // namespace mechint
