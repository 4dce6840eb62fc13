#pragma once
/// \file
/// The model's own check of a step just taken (KernelModel::check_step: a C++ model's
/// validate_configuration and validate_step, a model file's `domain`), with the failure placed at
/// that step. An integrator calls it after counting the step, so a DomainError names the step whose
/// end it refuses, and its time, as the fixed-size run loop's check does (integrate/run_loop.hpp);
/// the run loop would otherwise place it at the step after.

#include "kernel/kernel_model.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::kernel {

/// Checks the step from `q_before` to `q`, which ended at time `t` as step number `step`.
inline void check_taken_step(const KernelModel& model, const Vector& q_before, const Vector& q, double t, long step) {
  try {
    model.check_step(q_before, q, t);
  } catch (DomainError& e) {
    e.locate(step, t);
    throw;
  }
}

}  // namespace mechint::kernel
