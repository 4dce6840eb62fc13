#include "app/kernel_methods.hpp"

#include <cmath>
#include <stdexcept>

namespace mechint::app {

void run_kernel_problem(const KernelProblem& p, const std::string& method, const ParameterValues& options,
                        const OutputSchedule& schedule, RowWriter& out, const ControlSchedule& controls) {
  auto problem = std::make_shared<KernelProblem>(p);
  if (p.model->num_controls() > 0 && controls.width() != 0) {
    if (controls.width() != p.model->num_controls())
      throw std::logic_error("the run's controls do not match the model's control inputs");
    problem->controls = controls;
  }
  methods::start_method(problem, method, options, schedule.h)->run(schedule, out, method);
}

std::unique_ptr<SteppingSession> make_kernel_stepping_session(const KernelProblem& p, const std::string& method,
                                                              const ParameterValues& options, double h,
                                                              const ControlSchedule& controls) {
  if (!(std::isfinite(h) && h > 0.0)) throw InvalidInput("the step h must be a positive number, got " + format_number(h));
  auto problem = std::make_shared<KernelProblem>(p);
  if (p.model->num_controls() > 0 && controls.width() != 0) problem->controls = controls;
  problem->controls_replaced_while_stepping = true;  // set_controls below
  // A restart replaces the start of the one problem the controls live in; refused, it is put back.
  auto starter = [problem, method, options, h](const Eigen::VectorXd* q0,
                                               const Eigen::VectorXd* qdot0) -> std::unique_ptr<StepperView> {
    if (q0 == nullptr) return methods::start_method(problem, method, options, h);
    const Eigen::VectorXd saved_q0 = problem->q0, saved_qdot0 = problem->qdot0;
    const std::optional<Eigen::VectorXd> saved_p0 = problem->p0;
    try {
      problem->q0 = *q0;
      problem->qdot0 = *qdot0;
      problem->p0.reset();  // the restart states velocities
      return methods::start_method(problem, method, options, h);
    } catch (...) {
      problem->q0 = saved_q0;
      problem->qdot0 = saved_qdot0;
      problem->p0 = saved_p0;
      throw;
    }
  };
  auto set_controls = [problem](const Eigen::VectorXd& u) {
    problem->controls = ControlSchedule::constant(std::vector<double>(u.data(), u.data() + u.size()));
  };
  return std::make_unique<SteppingSession>(p.model->dim(), p.model->num_controls(), starter, set_controls);
}

}  // namespace mechint::app
