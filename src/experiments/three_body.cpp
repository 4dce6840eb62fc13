// `mechint reproduce three-body`: 001 §5's closing suggestion carried out — the variational
// integrator of the restricted three-body problem against standard Runge–Kutta methods.
//
// (a) Jacobi-constant error against time over 1e4 time units: VI and RK4 at the same step, and
//     dopri5 at the tolerance whose cost is closest to the VI's.
// (b) Work–precision: final-state error and maximum Jacobi error against CPU time, for the VI
//     (step sweep, full and simplified Newton), RK4 (step sweep), dopri5 and rk78 (tolerance
//     sweeps), against an rk78 reference at tolerance 1e-14 (checked against 1e-13).
//
// Every method runs on the model's AD kernels (kernel::ModelAdapter, instantiated once with the
// built-in systems): the VI is the kernel engine's, the Runge–Kutta methods are the kernel steppers
// on the Euler–Lagrange ODE derived from L; only `rk4-hand-written` steps the equations of motion
// typed in by hand.
//
// The orbit: a prograde orbit about the larger primary, q0 = (0.5, 0), q̇0 = (0, 0.9), Earth–Moon
// mass ratio. Its Jacobi constant (≈ 3.35) exceeds that of L1 (≈ 3.19), so it can never leave the
// neighbourhood of the larger primary: bounded for all time, yet perturbed by the smaller one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint::experiments {
namespace three_body_experiment {

using systems::ThreeBody;
using kernel::KernelModel;

const VecD<2> kQ0(0.5, 0.0), kV0(0.0, 0.9);
constexpr double kLongRun = 1e4;       // (a)
constexpr double kLongStep = 0.05;     // (a): 20 steps per unit, ~125 per orbit of the test body
constexpr double kWindow = 10.0;       // (a): maximum of |ΔC| reported per window
constexpr double kWorkHorizon = 50.0;  // (b): final time of the work–precision runs
constexpr double kAdaptiveSample = 0.5;  // (b): sampling interval of C for dopri5 and rk78

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU time per run: repeats `run` until 0.2 s have passed and returns the mean.
double mean_time(const std::function<void()>& run) {
  const auto t0 = std::chrono::steady_clock::now();
  int repeats = 0;
  do {
    run();
    ++repeats;
  } while (seconds_since(t0) < 0.2);
  return seconds_since(t0) / repeats;
}

/// |C − C0| at the end of every window (max over its samples), for one method.
struct JacobiTrace {
  std::string method;
  double cpu_s = 0;
  std::vector<double> t, max_error;
  double first_tenth = 0, last_tenth = 0;
  double iterations_per_step = 0;
};

/// Collects samples into windows of length kWindow.
class WindowedMaximum {
 public:
  explicit WindowedMaximum(JacobiTrace& trace) : trace_(trace) {}
  void add(double t, double error) {
    current_ = std::max(current_, error);
    if (t >= next_ - 1e-9) {
      trace_.t.push_back(next_);
      trace_.max_error.push_back(current_);
      current_ = 0;
      next_ += kWindow;
    }
    if (t <= 0.1 * kLongRun) trace_.first_tenth = std::max(trace_.first_tenth, error);
    if (t > 0.9 * kLongRun) trace_.last_tenth = std::max(trace_.last_tenth, error);
  }

 private:
  JacobiTrace& trace_;
  double current_ = 0, next_ = kWindow;
};

JacobiTrace long_run_vi(const KernelModel& kernels, NewtonVariant variant) {
  const ThreeBody model;
  JacobiTrace trace;
  trace.method = variant == NewtonVariant::kFull ? "vi-midpoint" : "vi-midpoint (simplified Newton)";
  NewtonOptions options;
  options.variant = variant;
  kernel::KernelVariationalIntegrator vi(kernels, kernel::Rule::kMidpoint, kLongStep, options);
  const double c0 = model.jacobi(kQ0, kV0);
  WindowedMaximum windows(trace);
  const long steps = std::lround(kLongRun / kLongStep);
  long iterations = 0;  // summed from each step's Newton statistics, observed after every step
  const auto t0 = std::chrono::steady_clock::now();
  vi.start_from_velocity(kernel::Vector(kQ0), kernel::Vector(kV0));
  integrate(vi, {.h = kLongStep, .t_end = static_cast<double>(steps) * kLongStep}, [&](const auto& s) {
    if (s.step_index() == 0) return;
    windows.add(s.time(), std::abs(model.jacobi(s.q(), s.velocity()) - c0));
    iterations += s.last_newton_stats().iterations;
  });
  trace.cpu_s = seconds_since(t0);
  trace.iterations_per_step = double(iterations) / steps;
  return trace;
}

/// Runs the started Runge–Kutta stepper `rk` over `segments` output intervals of length `dt_out`,
/// calling `observe(q, q̇, t)` at its start and at the end of every interval. rk4 takes fixed steps
/// (dt_out a multiple of its step); the adaptive methods choose theirs and deliver the state at each
/// output time exactly (step_toward). Returns the steps taken (accepted steps when adaptive).
template <class Stepper, class Observe>
long run_segments(Stepper& rk, double dt_out, long segments, Observe&& observe) {
  const auto observe_state = [&] {
    const double* x = rk.state().data();  // (q, q̇): the kernel ODE's layout and the hand-written one's
    observe(Eigen::Map<const VecD<2>>(x), Eigen::Map<const VecD<2>>(x + 2), rk.time());
  };
  const double t0 = rk.time();
  observe_state();
  for (long s = 0; s < segments; ++s) {
    const double t_out = t0 + static_cast<double>(s + 1) * dt_out;
    if constexpr (requires { rk.step_toward(t_out); }) {
      while (rk.time() < t_out) rk.step_toward(t_out);
    } else {
      const long stride = std::max(1L, std::lround(dt_out / rk.step_size()));
      for (long k = 0; k < stride; ++k) rk.step();
    }
    observe_state();
  }
  return rk.step_index();
}

/// Returns `run(rk)` for the kernel stepper of `method` on the Euler–Lagrange ODE derived from L,
/// started at (kQ0, kV0): rk4 at the step h, dopri5 and rk78 from the first step h under `tol`.
template <class Run>
long with_runge_kutta(const KernelModel& kernels, RungeKuttaMethod method, double h, RungeKuttaTolerances tol,
                      Run&& run) {
  return kernel::with_kernel_runge_kutta(kernel::KernelEulerLagrangeOde(kernels, nullptr), method, h, tol,
                                         [&](auto& rk) -> long {
                                           rk.start_from_velocity(kernel::Vector(kQ0), kernel::Vector(kV0));
                                           return run(rk);
                                         });
}

JacobiTrace long_run_rk(const KernelModel& kernels, RungeKuttaMethod method, const std::string& name, double h,
                        RungeKuttaTolerances tol) {
  const ThreeBody model;
  JacobiTrace trace;
  trace.method = name;
  const double c0 = model.jacobi(kQ0, kV0);
  WindowedMaximum windows(trace);
  const auto t0 = std::chrono::steady_clock::now();
  // Samples every kLongStep (the adaptive methods end each sampling interval exactly).
  with_runge_kutta(kernels, method, h, tol, [&](auto& rk) {
    return run_segments(rk, kLongStep, std::lround(kLongRun / kLongStep), [&](const auto& q, const auto& v, double t) {
      if (t > 0) windows.add(t, std::abs(model.jacobi(q, v) - c0));
    });
  });
  trace.cpu_s = seconds_since(t0);
  return trace;
}

/// Final state (q, q̇) at kWorkHorizon.
using FinalState = Eigen::Matrix<double, 4, 1>;

FinalState reference_state(const KernelModel& kernels, double tol) {
  FinalState x;
  with_runge_kutta(kernels, RungeKuttaMethod::kRk78, 1e-3, {tol, tol}, [&](auto& rk) {
    return run_segments(rk, kWorkHorizon, 1, [&](const auto& q, const auto& v, double) { x << q, v; });
  });
  return x;
}

struct WorkPoint {
  std::string method;
  double parameter = 0;  ///< h or tolerance
  double cpu_s = 0, final_error = 0, max_jacobi_error = 0;
  double iterations_per_step = 0, jacobians_per_step = 0;
  long steps = 0;
};

WorkPoint work_vi(const KernelModel& kernels, NewtonVariant variant, double h, const FinalState& ref) {
  const ThreeBody model;
  WorkPoint w;
  w.method = variant == NewtonVariant::kFull ? "vi-midpoint" : "vi-midpoint-simplified";
  w.parameter = h;
  NewtonOptions options;
  options.variant = variant;
  const double c0 = model.jacobi(kQ0, kV0);
  const long steps = std::lround(kWorkHorizon / h);
  auto run = [&](bool measure) {
    kernel::KernelVariationalIntegrator vi(kernels, kernel::Rule::kMidpoint, h, options);
    vi.start_from_velocity(kernel::Vector(kQ0), kernel::Vector(kV0));
    // C is evaluated at every step in the timed runs too, as the RK4 runs do; so are the Newton
    // counts of each step added up.
    double max_error = 0;
    long iterations = 0, jacobians = 0;
    integrate(vi, {.h = h, .t_end = static_cast<double>(steps) * h}, [&](const auto& s) {
      if (s.step_index() == 0) return;
      max_error = std::max(max_error, std::abs(model.jacobi(s.q(), s.velocity()) - c0));
      iterations += s.last_newton_stats().iterations;
      jacobians += s.last_newton_stats().jacobian_evaluations;
    });
    if (!std::isfinite(max_error)) throw std::runtime_error("three-body: non-finite Jacobi constant");
    if (measure) {
      w.max_jacobi_error = max_error;
      FinalState x;
      x << vi.q(), vi.velocity();
      w.final_error = (x - ref).norm();
      w.iterations_per_step = double(iterations) / steps;
      w.jacobians_per_step = double(jacobians) / steps;
    }
  };
  run(true);
  w.cpu_s = mean_time([&] { run(false); });
  w.steps = steps;
  return w;
}

/// How a work_rk run gets its right-hand side: the Euler–Lagrange ODE derived from L (the kernels),
/// or the equations of motion typed in by hand (rk4 only; same state layout), to show what the AD
/// derivation costs.
enum class Equations { kDerived, kHandWritten };

/// A Runge–Kutta run on the `equations`.
WorkPoint work_rk(const KernelModel& kernels, Equations equations, RungeKuttaMethod method, const std::string& name,
                  double h, double tol, const FinalState& ref) {
  const ThreeBody model;
  WorkPoint w;
  w.method = name;
  w.parameter = method == RungeKuttaMethod::kRk4 ? h : tol;
  const double c0 = model.jacobi(kQ0, kV0);
  // The measured run and the timed runs are the same call. RK4 is observed at every step; the
  // adaptive methods every kAdaptiveSample time units (dopri5 by its continuous extension, rk78
  // by clipping one step there), so that sampling barely constrains their step sizes.
  const bool fixed = method == RungeKuttaMethod::kRk4;
  const double dt_out = fixed ? h : kAdaptiveSample;
  const long segments = std::lround(kWorkHorizon / dt_out);
  auto run = [&](auto&& observe) -> long {
    if (equations == Equations::kHandWritten) {
      if (!fixed) throw std::logic_error("three-body: the hand-written equations run rk4 only");
      RungeKutta4<systems::ThreeBodyEquationsOfMotion> rk(systems::ThreeBodyEquationsOfMotion{model.mu}, h);
      rk.start({kQ0[0], kQ0[1], kV0[0], kV0[1]});
      return run_segments(rk, dt_out, segments, observe);
    }
    return with_runge_kutta(kernels, method, h, {tol, tol},
                            [&](auto& rk) { return run_segments(rk, dt_out, segments, observe); });
  };
  FinalState x;
  w.steps = run([&](const auto& q, const auto& v, double) {
    w.max_jacobi_error = std::max(w.max_jacobi_error, std::abs(model.jacobi(q, v) - c0));
    x << q, v;  // the last observation is the final state
  });
  w.final_error = (x - ref).norm();
  double sink = 0;
  w.cpu_s = mean_time([&] { run([&](const auto& q, const auto& v, double) { sink += model.jacobi(q, v); }); });
  if (!std::isfinite(sink)) throw std::runtime_error("three-body: non-finite Jacobi constant in a timed run");
  return w;
}

void write_jacobi_traces(const app::ExperimentContext& ctx, const std::vector<JacobiTrace>& traces) {
  std::ostringstream csv;
  csv << "method,t,max_jacobi_error\n";
  for (const auto& tr : traces)
    for (std::size_t i = 0; i < tr.t.size(); ++i) csv << tr.method << "," << tr.t[i] << "," << tr.max_error[i] << "\n";
  app::write_text_atomically((ctx.out_dir / "jacobi_error.csv").string(), csv.str());
}

void write_work_precision(const app::ExperimentContext& ctx, const std::vector<WorkPoint>& points) {
  std::ostringstream csv;
  csv << "method,parameter,steps,cpu_s,final_error,max_jacobi_error,iterations_per_step,jacobians_per_step\n";
  for (const auto& w : points)
    csv << w.method << "," << w.parameter << "," << w.steps << "," << w.cpu_s << "," << w.final_error << ","
        << w.max_jacobi_error << "," << w.iterations_per_step << "," << w.jacobians_per_step << "\n";
  app::write_text_atomically((ctx.out_dir / "work_precision.csv").string(), csv.str());
}

void run(const app::ExperimentContext& ctx) {
  const ThreeBody model;
  // The model's kernels, once for every run: those the command line runs, which supply the midpoint
  // rule's D1, D2 and D12 Ld by AD of its Ld (the VI's steps are those of `mechint run three-body`).
  const std::shared_ptr<const KernelModel> kernels = kernel::ModelAdapter<ThreeBody>::kernels_for_runs(model);
  // (a) Long runs.
  ctx.log << "  long runs over " << kLongRun << " time units" << std::endl;
  std::vector<JacobiTrace> traces;
  traces.push_back(long_run_vi(*kernels, NewtonVariant::kFull));
  traces.push_back(long_run_rk(*kernels, RungeKuttaMethod::kRk4, "rk4", kLongStep, {}));
  // dopri5 at the tolerance whose CPU time is closest to the VI's.
  JacobiTrace dopri;
  double dopri_tol = 0;
  for (double tol : {1e-5, 1e-6, 1e-7, 1e-8, 1e-9}) {
    JacobiTrace t = long_run_rk(*kernels, RungeKuttaMethod::kDopri5, "dopri5", kLongStep, {tol, tol});
    if (dopri.t.empty() || std::abs(std::log(t.cpu_s / traces[0].cpu_s)) <
                               std::abs(std::log(dopri.cpu_s / traces[0].cpu_s))) {
      dopri = t;
      dopri_tol = tol;
    }
  }
  dopri.method = "dopri5 (tol " + format_number(dopri_tol, 1) + ")";
  traces.push_back(dopri);
  write_jacobi_traces(ctx, traces);

  // (b) Work–precision.
  ctx.log << "  work-precision sweeps (reference: rk78 at tolerance 1e-14)" << std::endl;
  const FinalState ref = reference_state(*kernels, 1e-14);
  const double reference_uncertainty = (reference_state(*kernels, 1e-13) - ref).norm();
  std::vector<WorkPoint> points;
  for (double h : {0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005}) {
    points.push_back(work_vi(*kernels, NewtonVariant::kFull, h, ref));
    points.push_back(work_vi(*kernels, NewtonVariant::kSimplified, h, ref));
  }
  for (double h : {0.05, 0.02, 0.01, 0.005, 0.002, 0.001}) {
    points.push_back(work_rk(*kernels, Equations::kDerived, RungeKuttaMethod::kRk4, "rk4", h, 0, ref));
    points.push_back(work_rk(*kernels, Equations::kHandWritten, RungeKuttaMethod::kRk4, "rk4-hand-written", h, 0, ref));
  }
  for (double tol : {1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12})
    points.push_back(work_rk(*kernels, Equations::kDerived, RungeKuttaMethod::kDopri5, "dopri5", 1e-3, tol, ref));
  for (double tol : {1e-6, 1e-8, 1e-10, 1e-12})
    points.push_back(work_rk(*kernels, Equations::kDerived, RungeKuttaMethod::kRk78, "rk78", 1e-3, tol, ref));
  write_work_precision(ctx, points);

  // Orders from the step sweeps.
  auto order_of = [&](const std::string& method) {
    std::vector<double> h, e;
    for (const auto& w : points)
      if (w.method == method && w.final_error > 100 * reference_uncertainty) {
        h.push_back(w.parameter);
        e.push_back(w.final_error);
      }
    return h.size() >= 2 ? convergence_order(h, e) : NAN;
  };

  nlohmann::json j;
  j["system"] = "three-body";
  j["mu"] = model.mu;
  j["start"] = {{"x", kQ0[0]}, {"y", kQ0[1]}, {"vx", kV0[0]}, {"vy", kV0[1]}};
  j["jacobi_constant"] = model.jacobi(kQ0, kV0);
  j["long_run"] = {{"t_end", kLongRun}, {"h", kLongStep}, {"dopri5_tolerance", dopri_tol}};
  for (const auto& tr : traces)
    j["long_run"]["methods"].push_back({{"method", tr.method}, {"cpu_s", tr.cpu_s},
                                        {"max_jacobi_error_first_tenth", tr.first_tenth},
                                        {"max_jacobi_error_last_tenth", tr.last_tenth},
                                        {"ratio_last_to_first", tr.last_tenth / tr.first_tenth}});
  j["work_precision"] = {{"t_end", kWorkHorizon}, {"reference", "rk78 at rtol = atol = 1e-14"},
                         {"reference_uncertainty", reference_uncertainty}};
  for (const auto& w : points)
    j["work_precision"]["rows"].push_back({{"method", w.method}, {"parameter", w.parameter}, {"steps", w.steps},
                                           {"cpu_s", w.cpu_s}, {"final_error", w.final_error},
                                           {"max_jacobi_error", w.max_jacobi_error},
                                           {"iterations_per_step", w.iterations_per_step},
                                           {"jacobians_per_step", w.jacobians_per_step}});
  j["orders"] = {{"vi-midpoint", order_of("vi-midpoint")},
                 {"vi-midpoint-simplified", order_of("vi-midpoint-simplified")},
                 {"rk4", order_of("rk4")}};
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");

  std::ostringstream r;
  r << "# Restricted three-body problem: variational integrator against Runge–Kutta (001 §5)\n\n"
    << "Earth–Moon mass ratio mu = " << model.mu << ", rotating frame, start q0 = (0.5, 0), q̇0 = (0, 0.9): a "
    << "prograde orbit about the larger primary. Its Jacobi constant C = " << format_number(model.jacobi(kQ0, kV0), 6)
    << " exceeds C(L1) ≈ 3.188, so the orbit cannot leave the larger primary's region (Hill's criterion) "
       "while the smaller primary perturbs it: bounded, not periodic.\n\n"
    << "## (a) Jacobi constant over " << kLongRun << " time units, h = " << kLongStep << "\n\n"
    << "| method | cpu_s | max abs(C − C0), first tenth | last tenth | last / first |\n|---|---|---|---|---|\n";
  for (const auto& tr : traces)
    r << "| " << tr.method << " | " << format_number(tr.cpu_s, 3) << " | " << format_number(tr.first_tenth, 3) << " | "
      << format_number(tr.last_tenth, 3) << " | " << format_number(tr.last_tenth / tr.first_tenth, 3) << " |\n";
  r << "\nThe VI's Jacobi error oscillates within a fixed band (backward error analysis: it conserves a "
       "modified energy), RK4's grows linearly in time, dopri5's — whose tolerance was chosen to cost about "
       "what the VI costs — also drifts, at a rate set by its tolerance.\n\n"
    << "## (b) Work–precision to t = " << kWorkHorizon << "\n\n"
    << "Reference: rk78 at tolerance 1e-14; its distance to the 1e-13 run is "
    << format_number(reference_uncertainty, 2) << ". Errors are the Euclidean norm of the (q, q̇) difference at t = "
    << kWorkHorizon << "; CPU time is the mean over repeated runs, each evaluating C where it is sampled "
       "(every step for the VI and RK4, every " << kAdaptiveSample << " time units for dopri5 and rk78, "
       "which the steps count includes).\n\n"
    << "| method | h or tol | steps | cpu_s | final error | max abs(ΔC) | Newton iterations/step | Jacobians/step |\n"
       "|---|---|---|---|---|---|---|---|\n";
  for (const auto& w : points)
    r << "| " << w.method << " | " << format_number(w.parameter, 2) << " | " << w.steps << " | "
      << format_number(w.cpu_s, 3) << " | " << format_number(w.final_error, 3) << " | "
      << format_number(w.max_jacobi_error, 3) << " | "
      << (w.iterations_per_step > 0 ? format_number(w.iterations_per_step, 3) : "–") << " | "
      << (w.iterations_per_step > 0 ? format_number(w.jacobians_per_step, 3) : "–") << " |\n";
  r << "\nObserved orders (final error against h): VI " << format_number(order_of("vi-midpoint"), 3)
    << " (simplified Newton " << format_number(order_of("vi-midpoint-simplified"), 3) << "), RK4 "
    << format_number(order_of("rk4"), 3) << ".\n\n"
    << "Reading the diagram: for the final-state error, a high-order adaptive method wins at tight accuracy, "
       "as expected of a second-order method against orders 4–8; the VI's strength is the Jacobi column, "
       "whose error does not grow with the length of the run (part a). Every method here derives its "
       "equations from L by automatic differentiation; `rk4-hand-written` runs the same RK4 on the equations "
       "of motion typed in by hand, and the ratio of its CPU time to `rk4`'s is what that generality costs "
       "the baselines (the VI pays it as well). Simplified Newton evaluates the "
       "Jacobian rarely (column 'Jacobians/step') at the price of more, cheaper iterations.\n";
  if (app::draw_figures("three_body.py", ctx.out_dir, ctx.log))
    r << "\n![Jacobi error against time](jacobi_error.png)\n\n![work–precision](work_precision.png)\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), r.str());
}

}  // namespace three_body_experiment

app::ExperimentEntry three_body_entry() {
  return {"three-body",
          "001: Jacobi error over 1e4 time units and work-precision, VI (full/simplified Newton) vs rk4, dopri5, rk78",
          three_body_experiment::run};
}

}  // namespace mechint::experiments
