#pragma once
/// \file
/// The planar pendulum chain of N point masses (include/mechint/systems/pendulum_chain.hpp: relative
/// joint angles, unit-free parameters m, l, g) as hand-derived kernels for any N: L in O(N), its
/// gradient and Hessian blocks in O(N²) — the fixed-size model's formulas, over storage sized once.

#include <memory>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// The kernel model of a chain of `links` ≥ 1 links, every mass `mass`, every link `length`, gravity
/// `gravity`. Up to 6 links its kernels are compiled for the length (the loops' bounds known: a short
/// chain's step is mostly loop overhead otherwise) and keep their scratch on the stack; longer ones
/// keep O(N²) scratch in their context: one chain model serves one caller at a time (each run and
/// each stepping session makes its own).
KernelModel pendulum_chain_model(int links, double mass, double length, double gravity);

}  // namespace mechint::kernel
