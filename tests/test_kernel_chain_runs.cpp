// The pendulum chain on its hand-derived kernels (kernel/chain_kernels.cpp: what the command line's
// `pendulum-chain` runs) writes the rows the templated chain PendulumChain<N> writes on its kernels
// by AD (kernel/model_adapter.hpp, through a built-in's path, app/builtin_kernels.hpp): the same
// methods, the same columns, and values equal to round-off, for the variational rules in both forms
// and the Runge–Kutta baselines. Two formulations of one model's derivatives.
#include <gtest/gtest.h>

#include <cmath>

#include "app/kernel_methods.hpp"
#include "app/builtin_kernels.hpp"
#include "kernel/chain_kernels.hpp"
#include "kernel/model_adapter.txx"  // the fixed-size chain's kernels by AD (a model of no system source)
#include "mechint/systems/pendulum_chain.hpp"

namespace mechint {
namespace {

struct CapturedRows : app::RowWriter {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  void header(const std::vector<std::string>& c) override { columns = c; }
  void row(const std::vector<double>& values) override { rows.push_back(values); }
};

constexpr int kLinks = 4;

app::Problem<systems::PendulumChain<kLinks>> fixed_chain(const app::ParameterValues& v) {
  app::Problem<systems::PendulumChain<kLinks>> p(systems::PendulumChain<kLinks>{v.real("m"), v.real("l"), v.real("g")});
  for (int i = 0; i < kLinks; ++i) {
    p.q0[i] = v.real("th" + std::to_string(i + 1));
    p.initial_data[i] = v.real("dth" + std::to_string(i + 1));
    p.labels.coordinates.push_back("th" + std::to_string(i + 1));
  }
  return p;
}

app::KernelProblem kernel_chain(const app::ParameterValues& v) {
  app::KernelProblem p;
  p.model = std::make_shared<const kernel::KernelModel>(
      kernel::pendulum_chain_model(kLinks, v.real("m"), v.real("l"), v.real("g")));
  p.q0.resize(kLinks);
  p.qdot0.resize(kLinks);
  for (int i = 0; i < kLinks; ++i) {
    p.q0[i] = v.real("th" + std::to_string(i + 1));
    p.qdot0[i] = v.real("dth" + std::to_string(i + 1));
    p.labels.coordinates.push_back("th" + std::to_string(i + 1));
  }
  return p;
}

app::ParameterValues chain_values() {
  std::vector<app::ParameterSpec> specs = {app::ParameterSpec::real("m", 1.2, "mass"),
                                           app::ParameterSpec::real("l", 0.8, "length"),
                                           app::ParameterSpec::real("g", 9.81, "gravity")};
  const double start[kLinks] = {0.7, 0.3, 0.0, -0.2}, rate[kLinks] = {0.0, 0.4, -0.5, 0.0};
  for (int i = 0; i < kLinks; ++i) {
    specs.push_back(app::ParameterSpec::real("th" + std::to_string(i + 1), start[i], "angle"));
    specs.push_back(app::ParameterSpec::real("dth" + std::to_string(i + 1), rate[i], "rate"));
  }
  return app::ParameterValues::resolve(specs, {}, "chain");
}

void expect_same_rows(const std::string& method, const std::map<std::string, std::string>& method_settings) {
  const app::ParameterValues values = chain_values();
  const app::KernelProblem kernel_problem = kernel_chain(values);
  const auto options =
      app::ParameterValues::resolve(methods::method_options(methods::structure_of(*kernel_problem.model), method), method_settings, method);
  const OutputSchedule schedule{0.01, 3.0, 0.1};
  CapturedRows kernel_rows, fixed_rows;
  app::run_kernel_problem(kernel_problem, method, options, schedule, kernel_rows, app::ControlSchedule());
  app::run_kernel_problem(app::kernel_problem_of(fixed_chain(values)), method, options, schedule, fixed_rows, app::ControlSchedule());
  ASSERT_EQ(kernel_rows.columns, fixed_rows.columns) << method;
  ASSERT_EQ(kernel_rows.rows.size(), fixed_rows.rows.size()) << method;
  for (std::size_t r = 0; r < fixed_rows.rows.size(); ++r)
    for (std::size_t c = 0; c < fixed_rows.columns.size(); ++c)
      ASSERT_NEAR(kernel_rows.rows[r][c], fixed_rows.rows[r][c], 1e-10 * (1.0 + std::abs(fixed_rows.rows[r][c])))
          << method << " row " << r << " column " << fixed_rows.columns[c];
}

TEST(KernelChainRuns, WriteTheFixedSizeChainsRows) {
  expect_same_rows("vi-midpoint", {});
  expect_same_rows("vi-trapezoid", {{"form", "position"}, {"newton", "simplified"}});
  expect_same_rows("vi-first-order", {{"init", "source"}, {"fine_h", "0.001"}});
  expect_same_rows("rk4", {});
  expect_same_rows("rk78", {{"rtol", "1e-10"}});
  expect_same_rows("dopri5", {});
}

TEST(KernelChainRuns, OfferTheFixedSizeChainsMethodsWithTheirOptions) {
  const kernel::KernelModel model = kernel::pendulum_chain_model(kLinks, 1.0, 1.0, 9.81);
  // A fixed-size problem offers its own rows and, through its kernels (app/builtin_kernels.hpp), the
  // methods only kernels have: the same list, with the same options.
  const app::Problem<systems::PendulumChain<kLinks>> fixed;
  EXPECT_EQ(methods::offered_methods(methods::structure_of(model)), methods::offered_methods(app::method_structure_of(fixed)));
  for (const auto& method : methods::offered_methods(methods::structure_of(model))) {
    const auto a = methods::method_options(methods::structure_of(model), method), b = methods::method_options(app::method_structure_of(fixed), method);
    ASSERT_EQ(a.size(), b.size()) << method;
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].name, b[i].name) << method;
  }
}

}  // namespace
}  // namespace mechint
