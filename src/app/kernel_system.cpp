#include "app/kernel_system.hpp"

#include <string>
#include <vector>

#include "app/kernel_methods.hpp"
#include "app/kernel_optimize.hpp"

namespace mechint::app {
namespace {

std::vector<std::string> numbered(const char* prefix, int count) {
  std::vector<std::string> names;
  for (int i = 1; i <= count; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

}  // namespace

SystemEntry kernel_system_entry(std::string name, std::shared_ptr<const kernel::KernelModel> model) {
  const std::vector<std::string> coordinates = numbered("q", model->dim());
  OutputLabels labels;
  labels.coordinates = coordinates;
  labels.momenta = numbered("J", model->num_symmetries());
  const auto problem = [model, coordinates, labels](const ParameterValues& v) {
    KernelProblem p;
    p.model = model;
    const auto n = static_cast<Eigen::Index>(coordinates.size());
    p.q0.resize(n);
    p.qdot0.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      p.q0[i] = v.real(coordinates[static_cast<std::size_t>(i)]);
      p.qdot0[i] = v.real(coordinates[static_cast<std::size_t>(i)] + "_dot");
    }
    p.labels = labels;
    return p;
  };

  SystemEntry e;
  e.name = std::move(name);
  e.summary = "a model of " + std::to_string(model->dim()) + " coordinates given by its derivative kernels";
  const std::vector<std::string> offered = methods::offered_methods(methods::structure_of(*model));
  e.default_method = offered.front();  // vi-midpoint, or vi-trapezoid with walls, as for a model file
  e.controls = numbered("u", model->num_controls());
  e.parameters = [coordinates](const Overrides&) {
    std::vector<ParameterSpec> specs;
    for (const auto& c : coordinates) specs.push_back(ParameterSpec::real(c, 0.0, "initial value"));
    for (const auto& c : coordinates) specs.push_back(ParameterSpec::real(c + "_dot", 0.0, "initial velocity"));
    return specs;
  };
  e.methods = [offered](const ParameterValues&) { return offered; };
  e.method_options = [model](const ParameterValues&, const std::string& method) {
    return methods::method_options(methods::structure_of(*model), method);
  };
  run_on_kernel_problems(e, problem);
  e.optimize = [problem](const ParameterValues& v, const OptimalControlSpec& spec,
                          const std::vector<std::string>& controls) {
    return optimize_kernel_problem(problem(v), spec, controls);
  };
  return e;
}

void run_on_kernel_problems(SystemEntry& entry, std::function<KernelProblem(const ParameterValues&)> problem,
                            std::shared_ptr<const void> owner) {
  entry.run = [problem](const ParameterValues& v, const std::string& method, const ParameterValues& options,
                        const OutputSchedule& schedule, const ControlSchedule& controls, RowWriter& out) {
    run_kernel_problem(problem(v), method, options, schedule, out, controls);
  };
  entry.stepping = [problem, owner](const ParameterValues& v, const std::string& method, const ParameterValues& options,
                                    double h, const ControlSchedule& controls) {
    auto session = make_kernel_stepping_session(problem(v), method, options, h, controls);
    if (owner) session->keep_alive(owner);
    return session;
  };
}

}  // namespace mechint::app
