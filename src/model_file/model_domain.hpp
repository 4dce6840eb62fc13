#pragma once
/// \file
/// A model file's `domain` (DESIGN §6: inequalities d_i(q) > 0 where the model is defined) for the
/// methods on kernels: checked at the start (outside is bad input, exit 2) and, as the compiled C++
/// model checks it, at the end and at the midpoint of every step (the points where the discrete
/// Lagrangians evaluate L) — outside is a DomainError (exit 3) naming the inequality and its place in
/// the file. At the start the inequalities are evaluated from the expression trees
/// (model_file/evaluate.hpp); at every step by the model's compiled kernel (model_kernels.h, `domain`)
/// where it has one — the interpreted evaluation twice a step was a third of a small model's step.

#include <memory>
#include <string>
#include <vector>

#include "kernel/kernel_model.hpp"
#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// The message of a configuration outside the domain: inequality `i` has `value` ≤ 0 `where` t.
std::string domain_violation(const ModelDescription& d, std::size_t i, double value, const std::string& where, double t);

/// Throws InvalidStart when q0 is outside the domain.
void check_start_in_domain(const ModelDescription& d, const std::vector<double>& parameters, const Eigen::VectorXd& q0);

/// The step check (KernelModel::StepCheck) of the domain; the description and parameters are kept.
/// With `kernels` supplying `domain` (its function and context must outlive the check: the model's
/// own table), the values are the compiled ones.
kernel::KernelModel::StepCheck domain_step_check(std::shared_ptr<const ModelDescription> d,
                                                 std::shared_ptr<const std::vector<double>> parameters,
                                                 const mechint_model_kernels* kernels = nullptr);

}  // namespace mechint::model_file
