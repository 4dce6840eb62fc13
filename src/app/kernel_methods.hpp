#pragma once
/// \file
/// Runs and stepping sessions of a kernel problem (src/methods/kernel_problem.hpp) by a method of
/// the one registry (src/methods/method_registry.hpp): the run loop to the end of a schedule, or a
/// session its caller steps. Every system reaches its methods here: a built-in through
/// app/builtin_kernels.hpp, the pendulum chain, a model file, a C++ model struct.

#include <memory>
#include <string>

#include "app/control_schedule.hpp"
#include "app/stepping_session.hpp"
#include "methods/kernel_problem.hpp"
#include "methods/method_registry.hpp"

namespace mechint::app {

using methods::KernelProblem;

/// Runs the problem to schedule.t_end: the header and the rows at the output times to `out` (the
/// run loop, integrate/run_loop.hpp); `controls` replace the problem's when given.
void run_kernel_problem(const KernelProblem& problem, const std::string& method, const ParameterValues& options,
                        const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls);

/// A stepping session (app/stepping_session.hpp) of `method` from the problem's start, with h.
std::unique_ptr<SteppingSession> make_kernel_stepping_session(const KernelProblem& problem, const std::string& method,
                                                              const ParameterValues& options, double h,
                                                              const ControlSchedule& controls);

}  // namespace mechint::app
