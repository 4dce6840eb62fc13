#pragma once
/// \file
/// `Simulation` for the DAE baseline (`--method dae`) of any constrained model: SUNDIALS IDA on the
/// GGL formulation (mechint/integrate/ida_dae.hpp), with the columns of the variational simulation
/// (coordinates, energy, momenta, constraint_residual, lambda1..k). `h` is IDA's first step and the
/// output grid; IDA chooses its own steps. The lambda columns are the continuous multipliers
/// (d/dt ∂L/∂v − ∂L/∂q = Gᵀλ), not the per-step impulses of the variational integrator.

#include <memory>
#include <stdexcept>
#include <string>

#include "app/variational_simulation.hpp"
#include "mechint/analysis/legendre.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/ida_dae.hpp"

namespace mechint::app {

template <LagrangianModel M>
  requires(M::kNumConstraints > 0)
class DaeSimulation final : public Simulation {
 public:
  static constexpr int n = M::kDim;
  static constexpr int k = M::kNumConstraints;

  DaeSimulation(M model, OutputLabels labels, VecD<n> q0, VecD<n> v0, DaeTolerances tolerances)
      : dae_(std::move(model)), labels_(std::move(labels)), q0_(q0), v0_(v0), tol_(tolerances) {}

  std::vector<std::string> columns() const override {
    std::vector<std::string> c = labels_.leading_columns();
    c.push_back("constraint_residual");
    for (int i = 1; i <= k; ++i) c.push_back("lambda" + std::to_string(i));
    return c;
  }

  void run(const RunSettings& settings, const RowSink& sink) override {
    const M& model = dae_.model();
    const double off = model_constraints<M, double>(model, q0_).template lpNorm<Eigen::Infinity>();
    if (off > 1e-9)
      throw InvalidStart("start is off the constraint manifold: |g(q0)| = " + format_number(off) + " > 1e-9");
    const double tangent = (model_constraint_jacobian(model, q0_) * v0_).template lpNorm<Eigen::Infinity>();
    if (tangent > 1e-9)
      throw InvalidStart("initial velocity violates the velocity constraints: |Dg v0| = " + format_number(tangent));
    const long steps = steps_to_reach(settings.t_end, settings.h);
    const long stride = output_stride(settings.output_every, settings.h);
    const long segments = steps / stride;
    IdaIntegrator<ConstrainedDae<M>> ida(dae_, q0_, v0_, 0.0, settings.h, tol_);
    std::vector<double> row;
    auto emit = [&] {
      const VecD<n> q = ida.q(), v = ida.v();
      if (!q.allFinite() || !v.allFinite())
        throw std::runtime_error("the state is not finite at t = " + format_number(ida.time()));
      row.clear();
      row.push_back(ida.time());
      for (int i = 0; i < n; ++i) row.push_back(q[i]);
      if (!labels_.velocities.empty())
        for (int i = 0; i < n; ++i) row.push_back(v[i]);
      row.push_back(labels_.energy_factor * energy(model, q, v));
      const VecD<n> p = lagrangian_dv(model, q, v);
      for (int i = 0; i < M::kNumSymmetries; ++i) row.push_back(noether_momentum(model, i, q, p));
      row.push_back(model_constraints<M, double>(model, q).template lpNorm<Eigen::Infinity>());
      const VecD<k> lambda = ida.lambda();
      for (int i = 0; i < k; ++i) row.push_back(lambda[i]);
      sink(row);
    };
    emit();
    for (long s = 1; s <= segments; ++s) {
      ida.advance_to(static_cast<double>(s * stride) * settings.h);
      emit();
    }
  }

 private:
  ConstrainedDae<M> dae_;
  OutputLabels labels_;
  VecD<n> q0_, v0_;
  DaeTolerances tol_;
};

/// `rtol`, `atol` of the DAE baseline (IDA's scalar tolerances on q and v), for constrained systems
/// that offer `dae`; read back by read_start_settings.
inline std::vector<ParameterSpec> dae_parameters() {
  return {
      ParameterSpec::real("rtol", 1e-8, "relative tolerance of dae (SUNDIALS IDA)", 1e-15, 1.0),
      ParameterSpec::real("atol", 1e-10, "absolute tolerance of dae (SUNDIALS IDA)", 1e-18, 1.0),
  };
}

/// The DAE baseline of a constrained model, with the tolerances read by read_start_settings.
template <LagrangianModel M>
  requires(M::kNumConstraints > 0)
std::unique_ptr<Simulation> make_dae_simulation(const M& model, const OutputLabels& labels, const VecD<M::kDim>& q0,
                                                const VecD<M::kDim>& v0, const StartSettings& start) {
  return std::make_unique<DaeSimulation<M>>(model, labels, q0, v0, DaeTolerances{start.rtol, start.atol});
}

}  // namespace mechint::app
