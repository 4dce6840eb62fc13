#pragma once
/// \file
/// The planar pendulum chain of n links written as model files, as users write them: unit masses on
/// links of length l, with `[definitions]` giving each mass's position from the one before (DESIGN
/// §6), so the text grows linearly with n. Tests (tests/test_kernel_codegen.cpp) and benchmarks
/// (bench/bench_model_files.cpp) measure chains as model files with them; bench/chain_model_files.py
/// writes the same files for the command line.

#include <string>

namespace mechint::model_file {

/// In absolute angles p1..pn (each from the downward vertical). The first link starts at π/4, the
/// others hang down, at rest: the built-in `pendulum-chain` with th1 = π/4, th2 = −π/4 (joint
/// angles).
std::string pendulum_chain_model_text(int links);

/// In the built-in `pendulum-chain`'s own coordinates, the joint angles th1..thn (th1 from the
/// vertical, th_k between links k − 1 and k): a_k = a_(k−1) + th_k, x_k = x_(k−1) + l sin a_k,
/// y_k = y_(k−1) − l cos a_k. From the built-in's default start (th1 = π/4, the others 0, at rest),
/// so `pendulum-chain --set links=n` is the same system, step for step.
std::string relative_chain_model_text(int links);

/// In Cartesian coordinates x1, y1, ..., xn, yn with one length constraint per link,
/// (x_k − x_(k−1))² + (y_k − y_(k−1))² − l² = 0 (a DAE), from the built-in's default start (the
/// chain straight at π/4 from the vertical, at rest).
std::string cartesian_chain_model_text(int links);

}  // namespace mechint::model_file
