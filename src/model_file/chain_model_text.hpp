#pragma once
/// \file
/// The planar pendulum chain of n links written as a model file: unit masses on links of length l,
/// in absolute angles p1..pn (each from the downward vertical), with `[definitions]` giving each
/// mass's position from the one before (DESIGN §6), so the text grows linearly with n. The first
/// link starts at π/4, the others hang down, at rest: the built-in `pendulum-chain` with th1 = π/4,
/// th2 = −π/4 (joint angles). Tests (tests/test_kernel_codegen.cpp) and benchmarks
/// (bench/bench_model_files.cpp) measure chains as model files with it.

#include <string>

namespace mechint::model_file {

std::string pendulum_chain_model_text(int links);

}  // namespace mechint::model_file
