#pragma once
/// \file
/// A system made of derivative kernels alone (a C++ model's by AD, System::from_kernels): its
/// coordinates named q1..qn, their start values and rates settable as q1..qn and q1_dot..qn_dot
/// (default 0), its controls u1..um; its methods and their options are those the kernels' structure
/// admits (app/kernel_methods.hpp), as for a model file.

#include <functional>
#include <memory>
#include <string>

#include "app/kernel_methods.hpp"
#include "app/system_entry.hpp"
#include "kernel/kernel_model.hpp"

namespace mechint::app {

/// The entry of `model` named `name` (its coordinates q1..qn, momenta J1..Jk).
SystemEntry kernel_system_entry(std::string name, std::shared_ptr<const kernel::KernelModel> model);

/// The runs and stepping sessions of a system made of kernels (this file's, the pendulum chain, a
/// model file): each on the KernelProblem `problem` makes from the system's values, through
/// run_kernel_problem and make_kernel_stepping_session. A session keeps `owner` alive (the loaded
/// library a model file's kernels live in; may be null).
void run_on_kernel_problems(SystemEntry& entry, std::function<KernelProblem(const ParameterValues&)> problem,
                            std::shared_ptr<const void> owner = {});

}  // namespace mechint::app
