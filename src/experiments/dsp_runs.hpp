#pragma once
/// \file
/// Runs of the double spherical pendulum from a named start of 003 §4, sampled on a regular grid as
/// two-mass traces with their energy and J_z: by the energy–momentum integrator (003 §5) or by the
/// DAE baseline (SUNDIALS IDA, the role MEXX plays in 003 §3). Shared by `reproduce dsp-dae`,
/// `reproduce pattern-evocation` and their tests.

#include <string>
#include <vector>

#include "kernel/kernel_dae.hpp"
#include "mechint/analysis/rotating_frame.hpp"

namespace mechint::experiments {

/// IDA's relative and absolute tolerances of the DAE baseline.
using DaeTolerances = kernel::KernelDaeStepper::Tolerances;

/// A sampled run: positions of both masses, energy and J_z at every sample, and the wall-clock
/// time of the integration itself (sampling included, set-up excluded).
struct DspRun {
  analysis::TwoMassTrace trace;
  std::vector<double> energy, jz;
  double energy0 = 0.0, jz0 = 0.0;  ///< of the exact start (q0, q̇0)
  double cpu_s = 0.0;
  long steps = 0;  ///< integrator steps taken (IDA's internal steps for the DAE run)
};

/// Energy–momentum integrator at step h from `start` (pattern-1, pattern-2, pattern-3,
/// relative-equilibrium) up to t_end, sampled every `sample` seconds (a multiple of h).
DspRun energy_momentum_run(const std::string& start, double h, double t_end, double sample);

/// The DAE baseline with tolerances `tol`, sampled every `sample` seconds (IDA's output times).
DspRun dae_run(const std::string& start, DaeTolerances tol, double t_end, double sample);

/// r1, the horizontal distance of mass 1 from the z axis, every `every` seconds of a run sampled
/// every `sample` seconds (`every` a multiple of `sample`).
std::vector<double> r1_every(const DspRun& run, double every, double sample);

/// 003 §5's measure of the difference of two r1 series: e = ||a − b||₂ / N.
double measure_e(const std::vector<double>& a, const std::vector<double>& b);

/// Largest |x_i − x_0| / |x_0| over a series.
double max_relative_drift(const std::vector<double>& x, double x0);

}  // namespace mechint::experiments
