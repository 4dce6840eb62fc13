#include "model_file/model_domain.hpp"

#include <algorithm>
#include <limits>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/evaluate.hpp"

namespace mechint::model_file {
namespace {

/// The index of the first inequality that fails at q (its value in `value`), or -1. The symbol
/// values are this thread's, sized once: a step's check allocates nothing after the first.
int first_violated(const ModelDescription& d, const std::vector<double>& parameters, const Eigen::VectorXd& q,
                   double& value) {
  thread_local SymbolValues<double> symbols;
  symbols.q.assign(q.data(), q.data() + q.size());
  symbols.parameters.assign(parameters.begin(), parameters.end());
  for (std::size_t i = 0; i < d.domain.size(); ++i) {
    value = evaluate(d.domain[i], symbols);
    if (!(value > 0.0)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::string domain_violation(const ModelDescription& d, std::size_t i, double value, const std::string& where, double t) {
  const SourcePosition& p = d.domain_positions[i];
  return "the motion left the model's domain " + where + " t = " + format_number(t) + ": " + d.file + ":" +
         std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + quote_for_message(d.domain_text[i], 80) +
         " = " + format_number(value) + " is not > 0 (a singular point of the model, or a step too large to resolve it)";
}

void check_start_in_domain(const ModelDescription& d, const std::vector<double>& parameters, const Eigen::VectorXd& q0) {
  double value = 0.0;
  const int i = first_violated(d, parameters, q0, value);
  if (i >= 0) throw InvalidStart(d.name + ": " + domain_violation(d, static_cast<std::size_t>(i), value, "at the start,", 0.0));
}

kernel::KernelModel::StepCheck domain_step_check(std::shared_ptr<const ModelDescription> d,
                                                 std::shared_ptr<const std::vector<double>> parameters,
                                                 const mechint_model_kernels* kernels) {
  using DomainKernel = int (*)(const void*, const double*, double*);
  const bool compiled = kernels != nullptr && kernels->domain != nullptr &&
                        kernels->num_domain == static_cast<int32_t>(d->domain.size());
  const DomainKernel domain = compiled ? kernels->domain : nullptr;
  const void* const context = compiled ? kernels->context : nullptr;
  return [d = std::move(d), parameters = std::move(parameters), domain, context](const Eigen::VectorXd& q_before,
                                                                                const Eigen::VectorXd& q, double t) {
    // A state that is not finite is the run loop's to report (integrate/run_loop.hpp).
    if (!q.allFinite() || !q_before.allFinite()) return;
    thread_local Eigen::VectorXd midpoint;
    thread_local std::vector<double> values;
    const auto violated = [&](const Eigen::VectorXd& x, double& value) {
      if (domain == nullptr) return first_violated(*d, *parameters, x, value);
      values.resize(d->domain.size());  // sized once per thread
      // A kernel that does not give the values: the point counts as outside, as a NaN value does.
      if (domain(context, x.data(), values.data()) != MECHINT_KERNEL_OK)
        std::fill(values.begin(), values.end(), std::numeric_limits<double>::quiet_NaN());
      for (std::size_t i = 0; i < values.size(); ++i)
        if (!(values[i] > 0.0)) return value = values[i], static_cast<int>(i);
      return -1;
    };
    double value = 0.0;
    int i = violated(q, value);
    if (i >= 0) throw DomainError(domain_violation(*d, static_cast<std::size_t>(i), value, "at", t));
    midpoint = 0.5 * (q_before + q);  // sized once per thread
    i = violated(midpoint, value);
    if (i >= 0)
      throw DomainError(domain_violation(*d, static_cast<std::size_t>(i), value, "at the midpoint of the step ending at", t));
  };
}

}  // namespace mechint::model_file
