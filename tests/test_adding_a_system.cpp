// The worked example of docs/adding-a-system.md and the README: a planar pendulum written in
// Cartesian coordinates with a length constraint. Its motion must match the same pendulum written
// in an angle (the one-link pendulum chain): both converge at order 2 to the same solution. The
// model is integrated on the kernel engine, as the command line does: by its AD kernels,
// instantiated in this file from kernel/model_adapter.txx as a system's source does; the angle
// model by the chain's hand-derived kernels (what `mechint run pendulum-chain --set links=1` runs).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "app/run_system.hpp"
#include "app/system_entry.hpp"
#include "kernel/chain_kernels.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/model/lagrangian_model.hpp"

namespace {

// --- the model, exactly as in the documentation -------------------------------------------------
struct Pendulum2D {
  static constexpr int kDim = 2, kNumConstraints = 1, kNumSymmetries = 0;
  double m = 1, l = 1, g = 9.81;
  template <class T>
  T lagrangian(const mechint::Vec<T, 2>& q, const mechint::Vec<T, 2>& v) const {
    return 0.5 * m * mechint::squared_norm(v) - m * g * q[1];
  }
  template <class T>
  mechint::Vec<T, 1> constraints(const mechint::Vec<T, 2>& q) const {
    return mechint::Vec<T, 1>(mechint::squared_norm(q) - l * l);
  }
};
static_assert(mechint::LagrangianModel<Pendulum2D>);

// --- its command-line entry, as src/systems/NAME.cpp would hold it --------------------------------
mechint::app::SystemEntry pendulum_2d_entry() {
  using mechint::app::ParameterSpec;
  return mechint::app::make_system_entry(
      "pendulum-2d", "planar pendulum in Cartesian coordinates with its length constraint", "vi-midpoint",
      [](const mechint::app::Overrides&) {
        return std::vector<ParameterSpec>{ParameterSpec::real("l", 1.0, "rod length", 1e-300),
                                          ParameterSpec::real("x", 1.0, "initial x"),
                                          ParameterSpec::real("y", 0.0, "initial y")};
      },
      [](const mechint::app::ParameterValues& v, auto&& f) {
        mechint::app::Problem<Pendulum2D> p(Pendulum2D{1.0, v.real("l"), 9.81});
        p.q0 = mechint::VecD<2>(v.real("x"), v.real("y"));
        p.labels = {{"x", "y"}, {}};
        return f(p);
      });
}
// (in src/systems/ it would end with MECHINT_REGISTER_SYSTEM(pendulum_2d_entry); and, at namespace
// scope, MECHINT_INSTANTIATE_MODEL_KERNELS(Pendulum2D): the end of this file)
// -------------------------------------------------------------------------------------------------

using namespace mechint;
using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;

/// The kernels of Pendulum2D{} (the entry's default l = 1), as its entry's runs build them
/// (app/builtin_kernels.hpp).
std::shared_ptr<const KernelModel> pendulum_2d_kernels() {
  return kernel::ModelAdapter<Pendulum2D>::kernels_for_runs(Pendulum2D{});
}

TEST(AddingASystem, DocumentationExampleRunsOnTheConstraint) {
  const auto kernels = pendulum_2d_kernels();
  KernelVariationalIntegrator vi(*kernels, Rule::kMidpoint, 0.01);
  vi.start_from_velocity(VecD<2>(1, 0), VecD<2>(0, 0));
  const double e0 = vi.energy();
  EXPECT_NEAR(e0, 0.0, 1e-15);  // released from rest at the height of the pivot
  double worst_g = 0, worst_e = 0;
  for (int k = 0; k < 1000; ++k) {
    vi.step();
    worst_g = std::max(worst_g, std::abs(vi.constraint_residual()[0]));
    worst_e = std::max(worst_e, std::abs(vi.energy() - e0));
  }
  EXPECT_LE(worst_g, 1e-12);
  EXPECT_LE(worst_e, 0.05);  // O(h²) oscillation of a 9.81 J swing
  EXPECT_GT(worst_e, 0.0);
}

TEST(AddingASystem, CartesianAndAngleModelsConvergeToTheSameMotion) {
  const double theta0 = 0.9, t_end = 3.0;
  const auto cartesian = pendulum_2d_kernels();
  const KernelModel angle = kernel::pendulum_chain_model(1, 1.0, 1.0, 9.81);  // m, l, g of Pendulum2D{}
  // Angle from the downward vertical: x = l sin θ, y = −l cos θ.
  auto cartesian_error = [&](int steps, const VecD<2>& reference) {
    KernelVariationalIntegrator vi(*cartesian, Rule::kMidpoint, t_end / steps);
    vi.start_from_velocity(VecD<2>(std::sin(theta0), -std::cos(theta0)), VecD<2>::Zero());
    for (int k = 0; k < steps; ++k) vi.step();
    return (vi.q() - reference).norm();
  };
  auto angle_position = [&](int steps) {
    KernelVariationalIntegrator vi(angle, Rule::kMidpoint, t_end / steps);
    vi.start_from_velocity(VecD<1>(theta0), VecD<1>::Zero());
    for (int k = 0; k < steps; ++k) vi.step();
    return VecD<2>(std::sin(vi.q()[0]), -std::cos(vi.q()[0]));
  };
  const VecD<2> reference = angle_position(64000);  // the angle model at a tiny step
  std::vector<double> hs, errs;
  for (int steps : {250, 500, 1000, 2000}) {
    hs.push_back(t_end / steps);
    errs.push_back(cartesian_error(steps, reference));
  }
  EXPECT_NEAR(convergence_order(hs, errs), 2.0, 0.1);
  EXPECT_LE(errs.back(), 1e-4);
}

/// Collects the rows of a run.
struct Rows : mechint::app::RowWriter {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  void header(const std::vector<std::string>& c) override { columns = c; }
  void row(const std::vector<double>& r) override { rows.push_back(r); }
};

TEST(AddingASystem, ItsEntryOffersTheMethodsItsModelSatisfies) {
  const app::SystemEntry e = pendulum_2d_entry();
  const auto values = app::ParameterValues::resolve(e.parameters({}), {}, e.name);
  // Constrained, not a constant-mass model with a potential: the VI rules, the Lobatto rules of the
  // kernel boundary (through its kernels by AD, app/builtin_kernels.hpp) and the DAE baseline.
  EXPECT_EQ(e.methods(values), (std::vector<std::string>{"vi-midpoint", "vi-trapezoid", "vi-first-order", "vi-lobatto4",
                                                         "vi-lobatto6", "dae"}));
}

TEST(AddingASystem, ItsEntryRunsAsTheIntegratorDoes) {
  const app::SystemEntry e = pendulum_2d_entry();
  Rows out;
  app::run_system(e, "", {{"x", "0.6"}, {"y", "-0.8"}}, OutputSchedule{0.01, 1.0, 0.1}, out);
  EXPECT_EQ(out.columns, (std::vector<std::string>{"t", "x", "y", "energy", "constraint_residual", "lambda1"}));
  ASSERT_EQ(out.rows.size(), 11u);
  // The same integration written by hand, to the last bit.
  const auto kernels = pendulum_2d_kernels();
  KernelVariationalIntegrator vi(*kernels, Rule::kMidpoint, 0.01);
  vi.start_from_velocity(VecD<2>(0.6, -0.8), VecD<2>(0, 0));
  for (int k = 0; k < 100; ++k) vi.step();
  const auto& last = out.rows.back();
  EXPECT_EQ(last[0], 1.0);
  EXPECT_EQ(last[1], vi.q()[0]);
  EXPECT_EQ(last[2], vi.q()[1]);
  EXPECT_EQ(last[3], vi.energy());
  EXPECT_EQ(last[5], vi.lambda()[0]);
  // The DAE baseline reaches the same state up to the VI's O(h²) error.
  Rows dae;
  app::run_system(e, "dae", {{"x", "0.6"}, {"y", "-0.8"}, {"rtol", "1e-10"}, {"atol", "1e-12"}},
                  OutputSchedule{0.01, 1.0, 0.1}, dae);
  ASSERT_EQ(dae.rows.size(), 11u);
  EXPECT_EQ(dae.rows.back()[0], 1.0);
  EXPECT_NEAR(dae.rows.back()[1], last[1], 1e-3);
  EXPECT_NEAR(dae.rows.back()[2], last[2], 1e-3);
  // An option of another method is refused by name.
  EXPECT_THROW(app::run_system(e, "", {{"rtol", "1e-9"}}, OutputSchedule{}, out), InvalidInput);
}

}  // namespace

// The model's kernels, compiled once here as in a system's source (docs/adding-a-system.md).
MECHINT_INSTANTIATE_MODEL_KERNELS(Pendulum2D);
