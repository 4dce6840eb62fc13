#pragma once
// A check both backends of the kernel table's `separable_step` (model_kernels.h) must pass: the AD
// kernels of a built-in (tests/test_model_explicit_step.cpp) and a model file's generated C
// (tests/test_kernel_codegen.cpp).
#include <gtest/gtest.h>

#include "mechint/kernel/model_kernels.h"

/// A step of a Kepler-like model (unit mass, 2 coordinates, not defined at the origin) from
/// q0 = (0.5, 0), p0 = (−1, 0), f0 = 0 with h = 0.5 drifts to q1 = q0 + h (p0 + h/2 f0) = 0 exactly:
/// the step returns MECHINT_KERNEL_OUTSIDE_DOMAIN and leaves all four outputs as they were.
inline void expect_step_onto_the_origin_writes_nothing(const mechint_model_kernels& t) {
  ASSERT_NE(t.separable_step, nullptr);
  const double h = 0.5, q0[2] = {0.5, 0.0}, p0[2] = {-1.0, 0.0}, f0[2] = {0.0, 0.0};
  const double sentinel = 12345.0;
  double q1[2] = {sentinel, sentinel}, v[2] = {sentinel, sentinel}, f1[2] = {sentinel, sentinel},
         p1[2] = {sentinel, sentinel};
  EXPECT_EQ(t.separable_step(t.context, MECHINT_MASS_UNIT, nullptr, nullptr, h, q0, p0, f0, q1, v, f1, p1),
            MECHINT_KERNEL_OUTSIDE_DOMAIN);
  for (const double* out : {q1, v, f1, p1}) EXPECT_TRUE(out[0] == sentinel && out[1] == sentinel);
}
