#include "experiments/dsp_runs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/kernel_dae.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/analysis/reduced_coordinates.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/model/legendre.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"

namespace mechint::experiments {
namespace {

using systems::DoubleSphericalPendulum;

long multiple_of(double sample, double h) {
  const long m = std::lround(sample / h);
  if (m < 1 || std::abs(m * h - sample) > 1e-9 * sample)
    throw std::invalid_argument("the sampling interval must be a multiple of the step");
  return m;
}

void push_sample(DspRun& r, double t, const Eigen::VectorXd& q, double e, double jz) {
  r.trace.push_back(t, q.head<3>(), q.tail<3>());
  r.energy.push_back(e);
  r.jz.push_back(jz);
}

}  // namespace

DspRun energy_momentum_run(const std::string& start, double h, double t_end, double sample) {
  const DoubleSphericalPendulum model;
  const systems::DspState st = systems::complete_dsp_start(model, systems::named_dsp_start(start));
  multiple_of(sample, h);
  DspRun r;
  r.energy0 = energy(model, st.q, st.v);
  r.jz0 = noether_momentum(model, 0, st.q, lagrangian_dv(model, st.q, st.v));
  const auto kernels = kernel::ModelAdapter<DoubleSphericalPendulum>::kernels_for_runs(model);
  kernel::KernelEnergyMomentumIntegrator em(*kernels, h);
  em.start_from_velocity(kernel::Vector(st.q), kernel::Vector(st.v));
  const auto t0 = std::chrono::steady_clock::now();
  integrate(em, OutputSchedule{h, t_end, sample},
            [&](const auto& s) { push_sample(r, s.time(), s.q(), s.energy(), s.momentum(0)); });
  r.cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.steps = em.step_index();
  return r;
}

DspRun dae_run(const std::string& start, DaeTolerances tol, double t_end, double sample) {
  const DoubleSphericalPendulum model;
  const systems::DspState st = systems::complete_dsp_start(model, systems::named_dsp_start(start));
  DspRun r;
  r.energy0 = energy(model, st.q, st.v);
  r.jz0 = noether_momentum(model, 0, st.q, lagrangian_dv(model, st.q, st.v));
  const auto kernels = kernel::ModelAdapter<DoubleSphericalPendulum>::kernels_for_runs(model);
  const auto t0 = std::chrono::steady_clock::now();
  // IDA's first step 1e-4; it then chooses its own.
  kernel::KernelDaeStepper dae(*kernels, 1e-4, {tol.rtol, tol.atol});
  dae.start_from_velocity(kernel::Vector(st.q), kernel::Vector(st.v));
  integrate(dae, OutputSchedule{sample, t_end, sample},
            [&](const auto& s) { push_sample(r, s.time(), s.q(), s.energy(), s.momentum(0)); });
  r.cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.steps = dae.step_index();
  return r;
}

std::vector<double> r1_every(const DspRun& run, double every, double sample) {
  const std::size_t stride = static_cast<std::size_t>(multiple_of(every, sample));
  const analysis::ReducedTrace r = analysis::reduced_coordinates(run.trace);
  std::vector<double> out;
  for (std::size_t i = 0; i < r.r1.size(); i += stride) out.push_back(r.r1[i]);
  return out;
}

double measure_e(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("measure_e needs two series of one length");
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s) / static_cast<double>(a.size());
}

double max_relative_drift(const std::vector<double>& x, double x0) {
  double d = 0.0;
  for (double v : x) d = std::max(d, std::abs(v - x0) / std::abs(x0));
  return d;
}

}  // namespace mechint::experiments
