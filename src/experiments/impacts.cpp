// `mechint reproduce impacts`: 004 (Pekarek & Murphey) on the double pendulum.
//  * Fig. 1: H and H̃ against time on the two smooth starts at h = 5.8e-2, for the trapezoid VI
//    (004's integrator, eq. 16) and the generalized Störmer–Verlet method, each with both truncated
//    modified Hamiltonians; plus the slopes of their variations against h (which pairing holds).
//  * Fig. 2 left: H against time with the wall, the three impact laws, h = 5.8e-2, impact times.
//  * Fig. 2 right: L² trajectory error against h for the three laws, against a benchmark at
//    h = 1e-4 (CTEC, as 004), and against an adaptive hybrid reference with exact resets.
// Every run of a flow is the impact driver of the command line (kernel/kernel_impact_driver.hpp) on
// the double pendulum's kernels with its wall, as `mechint run double-pendulum --set wall=1`; the
// reference is the independent oracle integrate/hybrid_reference.hpp (Dormand–Prince with event
// location on the fixed-size model), which has no counterpart on kernels.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/animation_page.hpp"
#include "app/drawing.hpp"
#include "app/output.hpp"
#include "app/system_entry.hpp"
#include "app/plotting.hpp"
#include "experiments/experiments.hpp"
#include "kernel/builtin_model_kernels.hpp"
#include "kernel/kernel_hamiltonian.hpp"
#include "kernel/kernel_impact_driver.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/integrate/hybrid_reference.hpp"
#include "mechint/integrate/run_loop.hpp"
#include "mechint/systems/double_pendulum.hpp"

namespace {
/// The impact flow a method's name chooses (as the registry's rows do, src/methods/impact_flows.cpp).
[[maybe_unused]] mechint::kernel::Flow flow_of(std::string_view method) {
  return method == "stormer-verlet" ? mechint::kernel::Flow::kStormerVerlet : mechint::kernel::Flow::kTrapezoid;
}
}  // namespace


namespace mechint::experiments {
namespace impacts_experiment {

using kernel::KernelImpactDriver;
using kernel::KernelModel;
using kernel::Vector;
using systems::DoublePendulum;

constexpr double kH = 5.8e-2;        // 004 Fig. 1 and Fig. 2 left
constexpr double kBenchmarkH = 1e-4;  // 004 Fig. 2 right
constexpr long kFig2Steps = 130;      // 7.54 s: five impacts of CTEC at h = 5.8e-2, as 004 Fig. 2 left
constexpr double kFig1End = 20.0;

const systems::DoublePendulumStart& start_named(const std::string& name) {
  for (const auto& s : systems::kDoublePendulumStarts)
    if (name == s.name) return s;
  throw std::logic_error("no start " + name);
}

VecD<2> start_q(const systems::DoublePendulumStart& s) { return VecD<2>(s.th1, s.th2); }
VecD<2> start_p(const systems::DoublePendulumStart& s) { return VecD<2>(s.p1, s.p2); }

/// The kernels of 004's double pendulum with its wall (the table of `mechint run double-pendulum
/// --set wall=1`, compiled once in src/systems/double_pendulum.cpp). The smooth runs switch the wall
/// off in the driver's options (ImpactOptions::enabled), so every run integrates the same model.
std::shared_ptr<const KernelModel> double_pendulum_with_wall() {
  return kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{}, /*with_walls=*/true);
}

// ---- Fig. 1 -----------------------------------------------------------------------------------

struct SmoothVariation {
  double h, energy, htilde_sv, htilde_trap;  // max − min along the run
  double spike_sv, spike_trap;               // spike_ratio of each H̃ series
};

/// Height of the upward spikes of a H̃ series relative to those of H: max(H̃ − median H̃) divided
/// by max(H − median H) (H's spikes point up on these runs).
double spike_ratio(const std::vector<double>& energy, const std::vector<double>& htilde) {
  std::vector<double> e = energy, t = htilde;
  const double me = median_in_place(e), mt = median_in_place(t);
  double peak_e = 0, peak_t = -1e300;
  for (std::size_t i = 0; i < energy.size(); ++i)
    peak_e = std::max(peak_e, energy[i] - me), peak_t = std::max(peak_t, htilde[i] - mt);
  return peak_t / peak_e;
}

std::vector<SmoothVariation> smooth_run(const KernelModel& model, const std::string& method,
                                        const systems::DoublePendulumStart& s, double h, double t_end,
                                        std::ostringstream* csv) {
  // The impact driver with its walls switched off: the flow's own steps, through the one run loop.
  ImpactOptions smooth;
  smooth.enabled = false;
  KernelImpactDriver driver(model, flow_of(method), h, smooth);
  driver.start(Vector(start_q(s)), Vector(start_p(s)));
  // The driver evaluates only its own method's H̃; both truncations are read from the model's
  // Hamiltonian at the driver's (q, p).
  kernel::KernelHamiltonian hamiltonian(model);
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  std::vector<double> series[3];
  const long steps = std::lround(t_end / h);
  integrate(driver, OutputSchedule{h, static_cast<double>(steps) * h}, [&](const KernelImpactDriver& d) {
    const Vector& q = d.q();
    const Vector& p = d.p();
    const double v[3] = {hamiltonian.value(q, p),
                         hamiltonian.modified(ModifiedHamiltonianKind::kStormerVerlet, q, p, h),
                         hamiltonian.modified(ModifiedHamiltonianKind::kTrapezoidVi, q, p, h)};
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], v[i]), hi[i] = std::max(hi[i], v[i]);
      series[i].push_back(v[i]);
    }
    if (csv)
      *csv << s.name << "," << method << "," << d.step_index() * h << "," << format_exact(v[0]) << ","
           << format_exact(v[1]) << "," << format_exact(v[2]) << "\n";
  });
  return {{h, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], spike_ratio(series[0], series[1]),
           spike_ratio(series[0], series[2])}};
}

// ---- Fig. 2 -----------------------------------------------------------------------------------

struct Variant {
  std::string method;  // vi-trapezoid | stormer-verlet
  ImpactLaw law;
  bool printed_htilde = false;  // MHC with 004's printed H̃ along the trapezoid VI (mismatched)
  std::string label() const {
    return method + "/" + std::string(impact_law_name(law)) + (printed_htilde ? "-004-htilde" : "");
  }
};

struct Trajectory {
  std::vector<double> t, energy, htilde;
  std::vector<long> impacts_so_far;  // the driver's count at each sample (full series), the page marks them
  std::vector<Vector> q;  // at the sample times k·kH
  std::vector<kernel::KernelImpactRecord> impacts;  // every impact (full series only)
  long impact_count = 0;
  double cpu_s = 0;
};

Trajectory impact_run(const KernelModel& model, const Variant& v, double h, bool full_series = false) {
  ImpactOptions o;
  o.law = v.law;
  if (v.printed_htilde) {
    o.override_modified_hamiltonian = true;
    o.modified_hamiltonian = ModifiedHamiltonianKind::kStormerVerlet;
  }
  KernelImpactDriver d(model, flow_of(v.method), h, o);
  const auto& s = start_named("fig2");
  d.start(Vector(start_q(s)), Vector(start_p(s)));
  const long stride = std::lround(kH / h);
  const long steps = kFig2Steps * stride;
  // The driver keeps only its last impact (memory flat in the run's length): the full series is
  // sampled at every step, so each impact is read in the step that resolved it.
  if (full_series && stride != 1) throw std::logic_error("the full series of an impact run is sampled at every step");
  Trajectory tr;
  const auto t0 = std::chrono::steady_clock::now();
  auto sample = [&](const KernelImpactDriver&) {
    tr.q.push_back(d.q());
    if (full_series) {
      tr.t.push_back(d.time());
      tr.energy.push_back(d.energy());
      tr.htilde.push_back(d.htilde());
      tr.impacts_so_far.push_back(d.impact_count());
      const long unread = d.impact_count() - static_cast<long>(tr.impacts.size());
      if (unread > 1)
        throw std::logic_error(v.label() + ": " + std::to_string(unread) + " impacts within the step to t = " +
                               format_number(d.time()) + ", of which the driver keeps the last only");
      if (unread == 1) tr.impacts.push_back(d.last_impact());
    }
  };
  integrate(d, OutputSchedule{h, static_cast<double>(steps) * h, static_cast<double>(stride) * h}, sample);
  tr.cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  tr.impact_count = d.impact_count();
  return tr;
}

/// The page of Fig. 2 left's characteristic run (docs/animations.md): the double pendulum of the
/// command line with its wall, drawn from the run's samples.
constexpr const char* kAnimation = "fig2_left_mhc.html";

void write_animation(const app::ExperimentContext& ctx, const Trajectory& tr) {
  const auto& system = app::find_system("double-pendulum");
  const app::Overrides wall{{"wall", "1"}};
  const auto values = app::ParameterValues::resolve(system.parameters(wall), wall, system.name);
  app::AnimationFrames frames(tr.t.size());
  // The columns of `mechint run double-pendulum --set wall=1` that the page reads, `impacts` among them.
  frames.header({"t", "th1", "th2", "energy", "htilde", "impacts"});
  for (std::size_t i = 0; i < tr.t.size(); ++i)
    frames.row({tr.t[i], tr.q[i][0], tr.q[i][1], tr.energy[i], tr.htilde[i], static_cast<double>(tr.impacts_so_far[i])});
  frames.finish();
  app::write_animation_page((ctx.out_dir / kAnimation).string(), app::system_drawing(app::find_system("double-pendulum"), values), frames,
                            "004 Fig. 2 left: the double pendulum with its wall, vi-trapezoid with MHC, h = 5.8e-2");
}

/// L² norm in time of the configuration error: sqrt(Σ_k kH |q(t_k) − q_ref(t_k)|²), t_k = k·kH.
double l2_error(const std::vector<Vector>& a, const std::vector<Vector>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]).squaredNorm() * kH;
  return std::sqrt(sum);
}

std::string fmt(double x, int digits = 3) { return format_number(x, digits); }

/// The "compared with 004" section, from the measured numbers.
void write_comparison(const nlohmann::json& j, const std::vector<double>& sweep,
                      const std::map<std::string, std::vector<double>>& errors_ref, std::ostringstream& report) {
  auto fig1 = [&](const std::string& start, const std::string& method) {
    for (const auto& r : j["fig1"])
      if (r["start"] == start && r["method"] == method) return r;
    throw std::logic_error("fig1 row missing");
  };
  const auto right = fig1("fig1-right", "vi-trapezoid"), left = fig1("fig1-left", "vi-trapezoid");
  const double printed_slope = j["pairing_slopes"]["vi-trapezoid"]["htilde_sv"].get<double>();
  const double own_slope = j["pairing_slopes"]["vi-trapezoid"]["htilde_trap"].get<double>();
  const double c_printed = right["htilde_sv_spike_ratio"].get<double>();
  const double c_own = right["htilde_trap_spike_ratio"].get<double>();
  const double v_h = right["energy_variation"].get<double>(), v_printed = right["htilde_sv_variation"].get<double>(),
               v_own = right["htilde_trap_variation"].get<double>();
  report << "\n## Compared with 004\n\n"
            "The source's figures are available to us only through their captions and the text of 004 §IV; "
            "the comparisons below are with what 004 states about them.\n\n"
            "**Which H̃ pairing 004's figures are consistent with.** 004 integrates with Φ_h of eq. 16 (the "
            "trapezoid VI, §IV-B) and prints the H̃ of the generalized Störmer–Verlet method. Along the trapezoid "
            "VI that H̃ varies as h^"
         << fmt(printed_slope, 2) << " (the VI's own H̃_trap as h^" << fmt(own_slope, 2)
         << "). On the Fig. 1 right start at h = 5.8e-2 the printed H̃ along the trapezoid VI varies by "
         << fmt(v_printed) << " against H's " << fmt(v_h) << " and spikes upwards with H to " << fmt(c_printed, 2)
         << " of H's height, while the VI's own H̃ varies by " << fmt(v_own) << " and reaches only "
         << fmt(c_own, 2) << " of H's upward spikes (its spikes point down, see fig1.png). ";
  if (c_printed > 0.5 && v_printed > 0.5 * v_h && c_own < 0.5 * c_printed)
    report << "004 describes its Fig. 1 right as \"large spikes in H and H̃\" and says that \"H̃ exhibited similar "
              "spiking deviations\": that is what the mismatched pairing (trapezoid VI with the printed H̃) shows, "
              "spikes of H̃ that follow those of H. With the matched pairing the spikes of H̃ are smaller, point "
              "the other way, and fall as h⁴. So 004's Fig. 1 is consistent with the mismatched pairing (which is "
              "also what 004's text says it used), and "
              "its reading that the spikes \"stem from terms in the MH of O(h⁴) or higher\" does not follow for "
              "that pairing: a part of them is the O(h²) mismatch. ";
  else
    report << "These numbers do not single out one pairing for 004's description of Fig. 1 right. ";
  report << "On the Fig. 1 left start both truncations vary little compared with H (printed: "
         << fmt(left["htilde_sv_variation"].get<double>() / left["energy_variation"].get<double>(), 2)
         << " of H's variation, own: "
         << fmt(left["htilde_trap_variation"].get<double>() / left["energy_variation"].get<double>(), 2)
         << "), as 004's left plot (\"almost no variation in H̃\") shows for its pairing.\n\n";

  auto ratio_range = [&](const std::string& method) {
    double lo = 1e300, hi = 0;
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      const double r = errors_ref.at(method + "/ctec")[i] / errors_ref.at(method + "/mhc")[i];
      lo = std::min(lo, r), hi = std::max(hi, r);
    }
    return std::pair{lo, hi};
  };
  const auto [tr_lo, tr_hi] = ratio_range("vi-trapezoid");
  const auto [sv_lo, sv_hi] = ratio_range("stormer-verlet");
  report << "**MHC against CTEC and DTEC (Fig. 2 right).** 004: MHC is the most accurate of the three at every "
            "step size, about four times more accurate than CTEC, with consistent second order; DTEC is erratic. "
            "Ours, with 004's integrator (trapezoid VI): CTEC's error is "
         << fmt(tr_lo, 2) << "–" << fmt(tr_hi, 2) << " times MHC's over the sweep, MHC's fitted order is "
         << fmt(j["fig2_right_slopes"]["vi-trapezoid/mhc"]["reference"].get<double>(), 3)
         << (tr_lo >= 1.0 ? " — in agreement with 004. " : " — MHC is not better at every step size, unlike 004. ")
         << "With the generalized Störmer–Verlet method the ratio is " << fmt(sv_lo, 2) << "–" << fmt(sv_hi, 2)
         << (sv_hi < 1.0 ? ": there CTEC is more accurate than MHC at every step size, which 004 does not "
                           "anticipate (MHC is still second order, "
                         : ": (MHC order ")
         << fmt(j["fig2_right_slopes"]["stormer-verlet/mhc"]["reference"].get<double>(), 3)
         << "). DTEC's local slopes between consecutive step sizes (trapezoid VI):";
  const auto& d = errors_ref.at("vi-trapezoid/dtec");
  for (std::size_t i = 0; i + 1 < sweep.size(); ++i)
    report << " " << fmt(std::log(d[i] / d[i + 1]) / std::log(sweep[i] / sweep[i + 1]), 2);
  report << " — erratic, as 004 reports.\n\n";

  double bench_lo = 1e300, bench_hi = 0;
  for (const auto& b : j["benchmarks"]) {
    bench_lo = std::min(bench_lo, b["l2_error_reference"].get<double>());
    bench_hi = std::max(bench_hi, b["l2_error_reference"].get<double>());
  }
  report << "**Benchmarks.** 004 (footnote 5) finds its h = 1e-4 benchmarks O(1e-6) apart; ours are "
         << fmt(bench_lo, 2) << "–" << fmt(bench_hi, 2)
         << " from the adaptive reference, so measuring against the benchmark or the reference gives the same plot.\n\n";
  report << "**Fig. 2 left.** 004: the first, second and fourth impacts happen during spikes of H and make DTEC "
            "and CTEC drift, MHC keeps H stable. Ours (trapezoid VI, H at the end against H(0) = ";
  double h0 = 0;
  for (const auto& r : j["fig2_left"]) h0 = r["energy_start"].get<double>();
  report << fmt(h0, 6) << "):";
  for (const auto& r : j["fig2_left"])
    report << " " << r["variant"].get<std::string>() << " " << fmt(r["energy_end"].get<double>(), 6) << ";";
  report << " the energy jumps of DTEC and CTEC happen at the impacts, MHC's level stays.\n";
}

void run(const app::ExperimentContext& ctx) {
  const auto model = double_pendulum_with_wall();
  nlohmann::json j;
  std::ostringstream report;
  report << "# Impacts with Störmer–Verlet variational integrators (004, Pekarek & Murphey)\n\n"
            "Double pendulum of 004 §IV (m1 = m2 = L1 = L2 = 1, g = 10; the potential of DESIGN §2). "
            "Two integrators in momentum form: `vi-trapezoid`, the variational integrator of 004 eq. 16 "
            "(004's Φ_h), and `stormer-verlet`, the generalized Störmer–Verlet method in Hamiltonian form. "
            "Two truncated modified Hamiltonians: H̃_SV (the formula 004 prints) and "
            "H̃_trap = H − h²B (the trapezoid VI's own, docs/impacts.md).\n\n";

  // Every run of the experiment, counted on the progress line: 2 starts x 2 integrators (Fig. 1), the
  // slopes, each variant once at h = 5.8e-2 (Fig. 2 left), the reference, the benchmarks, the sweep.
  const std::vector<double> slope_h = {0.04, 0.02, 0.01, 0.005};
  std::vector<Variant> variants;
  for (const char* method : {"vi-trapezoid", "stormer-verlet"})
    for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) variants.push_back({method, law});
  variants.push_back({"vi-trapezoid", ImpactLaw::kMhc, true});
  const std::vector<double> sweep = {5.8e-2, 2.9e-2, 1.16e-2, 5.8e-3, 2.9e-3, 1.16e-3};
  const auto benchmarked = std::count_if(variants.begin(), variants.end(), [](const Variant& v) { return !v.printed_htilde; });
  ctx.progress.plan(static_cast<double>(4 + 2 * slope_h.size() + variants.size() + 1 + benchmarked +
                                        variants.size() * sweep.size()),
                    "runs");

  // ---- Fig. 1 and the pairing slopes ----
  ctx.log << "  Fig. 1: smooth runs" << std::endl;
  std::ostringstream fig1;
  fig1 << "start,method,t,energy,htilde_sv,htilde_trap\n";
  report << "## Fig. 1: H and H̃ on the smooth starts, h = 5.8e-2, 20 s\n\n"
            "Variation (max − min) along the run, and in brackets the height of H̃'s upward spikes "
            "relative to H's: max(H̃ − median H̃)/max(H − median H) (1: H̃ spikes up as far as H):\n\n"
            "| start | integrator | H | H̃_SV (004's formula) | H̃_trap |\n|---|---|---|---|---|\n";
  for (const char* name : {"fig1-left", "fig1-right"}) {
    const auto& s = start_named(name);
    const auto a = smooth_run(*model, "vi-trapezoid", s, kH, kFig1End, &fig1)[0];
    const auto b = smooth_run(*model, "stormer-verlet", s, kH, kFig1End, &fig1)[0];
    ctx.progress.advance(2);
    for (const auto& [method, r] : {std::pair{"vi-trapezoid", a}, std::pair{"stormer-verlet", b}}) {
      report << "| " << name << " | " << method << " | " << fmt(r.energy) << " | " << fmt(r.htilde_sv) << " ("
             << fmt(r.spike_sv, 2) << ") | " << fmt(r.htilde_trap) << " (" << fmt(r.spike_trap, 2) << ") |\n";
      j["fig1"].push_back({{"start", name}, {"method", method}, {"h", kH}, {"energy_variation", r.energy},
                           {"htilde_sv_variation", r.htilde_sv}, {"htilde_trap_variation", r.htilde_trap},
                           {"htilde_sv_spike_ratio", r.spike_sv}, {"htilde_trap_spike_ratio", r.spike_trap}});
    }
  }
  app::write_text_atomically((ctx.out_dir / "fig1.csv").string(), fig1.str());

  ctx.log << "  slopes of the variation of H and H~ against h" << std::endl;
  report << "\n### Which H̃ belongs to which integrator: slopes of the variation against h\n\n"
            "Start fig1-right, 5 s, h = 0.04, 0.02, 0.01, 0.005. Fitted slope of log(max − min) "
            "against log h:\n\n| integrator | H | H̃_SV | H̃_trap |\n|---|---|---|---|\n";
  std::ostringstream slopes_csv;
  slopes_csv << "method,h,energy,htilde_sv,htilde_trap\n";
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    std::vector<double> e, s1, s2;
    for (double h : slope_h) {
      const auto r = smooth_run(*model, method, start_named("fig1-right"), h, 5.0, nullptr)[0];
      ctx.progress.advance();
      e.push_back(r.energy), s1.push_back(r.htilde_sv), s2.push_back(r.htilde_trap);
      slopes_csv << method << "," << h << "," << r.energy << "," << r.htilde_sv << "," << r.htilde_trap << "\n";
    }
    const double oe = convergence_order(slope_h, e), o1 = convergence_order(slope_h, s1),
                 o2 = convergence_order(slope_h, s2);
    report << "| " << method << " | " << fmt(oe) << " | " << fmt(o1) << " | " << fmt(o2) << " |\n";
    j["pairing_slopes"][method] = {{"energy", oe}, {"htilde_sv", o1}, {"htilde_trap", o2}};
  }
  app::write_text_atomically((ctx.out_dir / "pairing_slopes.csv").string(), slopes_csv.str());

  // ---- Fig. 2 left ----
  ctx.log << "  Fig. 2 left: the wall, h = 5.8e-2" << std::endl;
  std::ostringstream fig2l, impacts_csv;
  fig2l << "variant,method,law,t,energy,htilde\n";
  impacts_csv << "variant,h,time,alpha,lambda,energy_before,energy_after,htilde_before,htilde_after\n";
  report << "\n## Fig. 2 left: H with the wall, h = 5.8e-2, 7.54 s\n\n"
            "| variant | impacts | impact times | H(0) | H(end) | max |H − H(0)| |\n|---|---|---|---|---|---|\n";
  for (const auto& v : variants) {
    const Trajectory tr = impact_run(*model, v, kH, true);
    ctx.progress.advance();
    double worst = 0;
    for (std::size_t i = 0; i < tr.t.size(); ++i) {
      fig2l << v.label() << "," << v.method << "," << impact_law_name(v.law) << "," << tr.t[i] << ","
            << format_exact(tr.energy[i]) << "," << format_exact(tr.htilde[i]) << "\n";
      worst = std::max(worst, std::abs(tr.energy[i] - tr.energy[0]));
    }
    std::string times;
    nlohmann::json jt = nlohmann::json::array();
    for (const auto& r : tr.impacts) {
      impacts_csv << v.label() << "," << kH << "," << format_exact(r.time) << "," << r.alpha << "," << r.lambda << ","
                  << format_exact(r.energy_before) << "," << format_exact(r.energy_after) << ","
                  << format_exact(r.htilde_before) << "," << format_exact(r.htilde_after) << "\n";
      times += (times.empty() ? "" : ", ") + fmt(r.time, 4);
      jt.push_back({{"time", r.time}, {"alpha", r.alpha}, {"lambda", r.lambda},
                    {"energy_before", r.energy_before}, {"energy_after", r.energy_after}});
    }
    if (v.method == "vi-trapezoid" && v.law == ImpactLaw::kMhc && !v.printed_htilde) write_animation(ctx, tr);
    report << "| " << v.label() << " | " << tr.impacts.size() << " | " << times << " | " << fmt(tr.energy.front(), 6)
           << " | " << fmt(tr.energy.back(), 6) << " | " << fmt(worst) << " |\n";
    j["fig2_left"].push_back({{"variant", v.label()}, {"method", v.method}, {"law", impact_law_name(v.law)},
                              {"h", kH}, {"impacts", jt}, {"energy_start", tr.energy.front()},
                              {"energy_end", tr.energy.back()}, {"max_energy_deviation", worst}});
  }
  app::write_text_atomically((ctx.out_dir / "fig2_left.csv").string(), fig2l.str());
  report << "\nThe vi-trapezoid/mhc run drawn moving, its wall red at each impact: [" << kAnimation << "](" << kAnimation
         << ") (docs/animations.md).\n";

  // ---- Fig. 2 right ----
  ctx.log << "  Fig. 2 right: hybrid reference and h = 1e-4 benchmarks" << std::endl;
  const auto& s = start_named("fig2");
  std::vector<double> times;
  for (long k = 0; k <= kFig2Steps; ++k) times.push_back(k * kH);
  std::vector<HybridReference<DoublePendulum>::Event> events;
  const auto ref_samples = HybridReference<DoublePendulum>(DoublePendulum{}, 1e-13)
                               .run(start_q(s), start_p(s), 0.0, times.back(), times, events);
  ctx.progress.advance();
  std::vector<Vector> reference;
  for (const auto& x : ref_samples) reference.push_back(x.q);
  for (const auto& e : events) j["reference_impact_times"].push_back(e.time);

  std::ostringstream fig2r;
  fig2r << "variant,method,law,h,l2_error_benchmark,l2_error_reference,impacts,cpu_s\n";
  report << "\n## Fig. 2 right: L² trajectory error against h\n\n"
            "L² error = sqrt(Σ_k Δ |q(t_k) − q_b(t_k)|²) over t_k = k·5.8e-2, Δ = 5.8e-2, 0 ≤ t ≤ 7.54 s, "
            "configuration (θ1, θ2). Benchmark: the same integrator with CTEC at h = 1e-4 (as 004); "
            "reference: Dormand–Prince 5(4), tolerance 1e-13, event location and the exact elastic reset "
            "(" << events.size() << " impacts).\n\n";
  std::map<std::string, std::vector<Vector>> benchmarks;
  for (const auto& v : variants) {
    if (v.printed_htilde) continue;
    const Trajectory b = impact_run(*model, v, kBenchmarkH);
    ctx.progress.advance();
    benchmarks[v.label()] = b.q;
    j["benchmarks"].push_back({{"variant", v.label()}, {"h", kBenchmarkH}, {"l2_error_reference", l2_error(b.q, reference)},
                               {"cpu_s", b.cpu_s}});
  }
  report << "Benchmarks at h = 1e-4 against the reference (004 footnote 5 reports O(1e-6) between its "
            "benchmarks):\n\n| benchmark | L² error vs reference |\n|---|---|\n";
  for (const auto& b : j["benchmarks"])
    report << "| " << b["variant"].get<std::string>() << " | " << fmt(b["l2_error_reference"].get<double>()) << " |\n";
  report << "\n| variant | ";
  for (double h : sweep) report << "h = " << fmt(h) << " | ";
  report << "slope (benchmark) | slope (reference) |\n|---|";
  for (std::size_t i = 0; i < sweep.size() + 2; ++i) report << "---|";
  report << "\n";
  std::map<std::string, std::vector<double>> errors_ref;
  for (const auto& v : variants) {
    const auto& bench = benchmarks.at(v.method + "/ctec");
    std::vector<double> eb, er;
    for (double h : sweep) {
      const Trajectory tr = impact_run(*model, v, h);
      ctx.progress.advance();
      eb.push_back(l2_error(tr.q, bench));
      er.push_back(l2_error(tr.q, reference));
      fig2r << v.label() << "," << v.method << "," << impact_law_name(v.law) << "," << h << "," << eb.back() << ","
            << er.back() << "," << tr.impact_count << "," << tr.cpu_s << "\n";
      j["fig2_right"].push_back({{"variant", v.label()}, {"method", v.method}, {"law", impact_law_name(v.law)},
                                 {"h", h}, {"l2_error_benchmark", eb.back()}, {"l2_error_reference", er.back()},
                                 {"impacts", tr.impact_count}, {"cpu_s", tr.cpu_s}});
    }
    const double ob = convergence_order(sweep, eb), orf = convergence_order(sweep, er);
    j["fig2_right_slopes"][v.label()] = {{"benchmark", ob}, {"reference", orf}};
    errors_ref[v.label()] = er;
    report << "| " << v.label() << " | ";
    for (std::size_t i = 0; i < sweep.size(); ++i) report << fmt(eb[i]) << " (" << fmt(er[i], 2) << ") | ";
    report << fmt(ob) << " | " << fmt(orf) << " |\n";
  }
  app::write_text_atomically((ctx.out_dir / "fig2_right.csv").string(), fig2r.str());
  app::write_text_atomically((ctx.out_dir / "impacts.csv").string(), impacts_csv.str());
  report << "\n(Each cell: error against the h = 1e-4 benchmark, in parentheses against the reference.)\n";

  // Ratios CTEC / MHC per integrator.
  report << "\nError ratio CTEC / MHC (against the reference):\n\n| integrator | ";
  for (double h : sweep) report << fmt(h) << " | ";
  report << "\n|---|";
  for (std::size_t i = 0; i < sweep.size(); ++i) report << "---|";
  report << "\n";
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    report << "| " << method << " | ";
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      const double ratio = errors_ref[method + "/ctec"][i] / errors_ref[method + "/mhc"][i];
      report << fmt(ratio, 2) << " | ";
      j["ctec_over_mhc"][method].push_back(ratio);
    }
    report << "\n";
  }

  ctx.progress.clear();  // the runs are done: the figures are drawn below
  write_comparison(j, sweep, errors_ref, report);
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");
  if (app::draw_figures("impacts.py", ctx.out_dir, ctx.log))
    report << "\n![Fig. 1](fig1.png)\n\n![Fig. 2 left](fig2_left.png)\n\n![Fig. 2 right](fig2_right.png)\n";
  report << "\nSee docs/impacts.md for the definitions and the comparison with 004's figures and claims.\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace impacts_experiment

app::ExperimentEntry impacts_entry() {
  return {"impacts",
          "004: H and H~ of both Stormer-Verlet integrators (Fig. 1), the double pendulum against a wall with "
          "DTEC, CTEC, MHC (Fig. 2 left, L2 error against h: Fig. 2 right)",
          impacts_experiment::run};
}

}  // namespace mechint::experiments
