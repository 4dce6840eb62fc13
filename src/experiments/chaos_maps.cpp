// `mechint reproduce chaos-maps` (issue 27 item 6, DESIGN §9, docs/chaos-indicators.md): MEGNO
// maps over grids of initial conditions, each a `mechint sweep` run in this process on every
// hardware thread, with `indicators=on`:
//   - Hénon–Heiles on the section x = 0 over (y, ẏ), ẋ > 0 from the energy, at E = 1/12, 1/8, 1/6,
//     next to Poincaré sections (upward crossings of x = 0) of a few dozen orbits at each energy;
//   - the planar circular restricted three-body problem (Earth–Moon) over initial positions (x, y) at
//     a fixed Jacobi constant, the velocity perpendicular to the position (from the barycentre),
//     counter-clockwise in the rotating frame, its magnitude from the Jacobi constant.
// Starts outside the energy surface fail in the sweep with a derived value that is not finite (the
// forbidden region); runs that fail on the way (Newton, a rejected step, a collision) are kept
// apart. The resolutions below keep the whole experiment under a minute on a 2-core machine;
// MECHINT_CHAOS_MAPS_REDUCED=1 runs coarser grids over shorter times (the test's variant).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <sstream>
#include <thread>

#include <boost/math/tools/toms748_solve.hpp>
#include <nlohmann/json.hpp>

#include "app/output.hpp"
#include "app/plotting.hpp"
#include "app/sweep_file.hpp"
#include "experiments/experiments.hpp"
#include "experiments/megno_map.hpp"
#include "experiments/poincare_section.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/core/format.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint::experiments {
namespace chaos_maps_experiment {

namespace fs = std::filesystem;
using app::exact_text;
using kernel::Vector;

/// Grid sizes and times. Full: what the report shows (measured: docs/chaos-indicators.md);
/// reduced: the same maps on coarser grids over shorter times, for the test suite.
struct Resolution {
  int hh_grid;          ///< members per side of each Hénon–Heiles map
  double hh_t_end;      ///< of each member
  int orbits;           ///< Poincaré orbits per energy
  double section_t_end; ///< of each orbit
  int tb_grid;          ///< members per side of the three-body map
  double tb_t_end;
};

constexpr Resolution kFull{50, 500.0, 30, 2000.0, 40, 100.0};
constexpr Resolution kReduced{24, 200.0, 12, 500.0, 16, 50.0};

bool reduced() {
  const char* env = std::getenv("MECHINT_CHAOS_MAPS_REDUCED");
  return env != nullptr && *env != '\0' && std::string(env) != "0";
}

// ---- Hénon–Heiles ----------------------------------------------------------------------------------

/// The model file the maps sweep, written into the output directory so that the installed command
/// needs no source tree (the Lagrangian of examples/models/henon-heiles.toml).
constexpr const char* kHenonHeilesModel = R"model(# The Henon-Heiles system (Henon and Heiles 1964), written by mechint reproduce chaos-maps.
name = "henon-heiles"
description = "Henon-Heiles potential, unit mass"
coordinates = ["x", "y"]
parameters = { lambda = 1.0 }
lagrangian = "0.5*(x_dot^2 + y_dot^2) - 0.5*(x^2 + y^2) - lambda*(x^2*y - y^3/3)"
h = 0.1
)model";

/// The same Lagrangian as a C++ model on the kernels by automatic differentiation: the Poincaré
/// orbits run in this process, outside any sweep.
struct HenonHeiles {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) - 0.5 * (q[0] * q[0] + q[1] * q[1]) -
           (q[0] * q[0] * q[1] - q[1] * q[1] * q[1] / 3.0);
  }
};

/// The rule and step of every Hénon–Heiles run: fourth order at 63 steps per period of the small
/// oscillations (the energy error of the section orbits stays below 2e-7 up to E = 1/6); about as
/// cheap per unit time as the midpoint rule at h = 0.05, and closer to the flow.
constexpr const char* kHenonHeilesMethod = "vi-gauss4";
constexpr double kHenonHeilesH = 0.1;

double hh_potential_on_section(double y) { return 0.5 * y * y - y * y * y / 3.0; }

/// The interval of y on x = 0 inside the energy surface E ≤ 1/6: between the roots of
/// V(0, y) = E in [−1, 0] and in [0, 1] (at E = 1/6 the upper one is the saddle y = 1).
std::pair<double, double> hh_y_range(double energy) {
  const auto f = [energy](double y) { return hh_potential_on_section(y) - energy; };
  const auto root = [&](double a, double b) {
    if (!(f(a) * f(b) < 0.0)) return std::abs(f(a)) < std::abs(f(b)) ? a : b;
    std::uintmax_t evaluations = 100;
    const auto [lo, hi] = boost::math::tools::toms748_solve(f, a, b, boost::math::tools::eps_tolerance<double>(), evaluations);
    return 0.5 * (lo + hi);
  };
  return {root(-1.0, 0.0), root(0.0, 1.0)};
}

/// A grid `count` cells wide over [lo, hi] as a sweep range of the cells' centres (the figure's
/// cells then tile the box exactly).
std::string cell_centres(double lo, double hi, int count) {
  const double d = (hi - lo) / count;
  return "{ from = " + exact_text(lo + d / 2) + ", to = " + exact_text(hi - d / 2) + ", count = " + std::to_string(count) + " }";
}

struct HenonHeilesMap {
  double energy;
  std::string label;  ///< "1/12", ...
  double y_lo, y_hi, y_dot_max;
  MegnoMap map;
};

std::string hh_sweep(double energy, const std::pair<double, double>& y, double y_dot_max, const Resolution& r) {
  std::ostringstream s;
  s << "# Written by mechint reproduce chaos-maps: a MEGNO map of Henon-Heiles at E = " << exact_text(energy)
    << " on the section x = 0; x_dot > 0 from the energy (NaN outside it: the forbidden region).\n"
    << "system = \"../henon-heiles.toml\"\nmethod = \"" << kHenonHeilesMethod << "\"\nh = " << exact_text(kHenonHeilesH)
    << "\nt_end = " << exact_text(r.hh_t_end) << "\n\n[set]\nx = 0.0\nindicators = \"on\"\n\n[vary]\n"
    << "y = " << cell_centres(y.first, y.second, r.hh_grid) << "\n"
    << "y_dot = " << cell_centres(-y_dot_max, y_dot_max, r.hh_grid) << "\n\n[derived]\n"
    << "x_dot = \"sqrt(2*" << exact_text(energy) << " - y_dot^2 - x^2 - y^2 - 2*lambda*(x^2*y - y^3/3))\"\n\n"
    << "[sweep]\nrecord = [\"megno\", \"lyapunov\", \"steps\", \"cpu_s\"]\n";
  return s.str();
}

/// Upward crossings of x = 0 of `orbits` orbits started on the section at ẏ = 0, y spread over the
/// allowed interval (cell centres), as CSV rows `energy,orbit,t,y,x_dot,y_dot`.
std::string hh_sections(const HenonHeilesMap& m, const kernel::KernelModel& model, const Resolution& r, long& points) {
  std::ostringstream csv;
  for (int k = 0; k < r.orbits; ++k) {
    const double y0 = m.y_lo + (m.y_hi - m.y_lo) * (k + 0.5) / r.orbits;
    Vector q0(2), v0(2);
    q0 << 0.0, y0;
    v0 << std::sqrt(2.0 * (m.energy - hh_potential_on_section(y0))), 0.0;
    const auto crossings = section_crossings(model, kernel::gauss_tableau(2), kHenonHeilesH, q0, v0, r.section_t_end, 0);
    for (const SectionCrossing& c : crossings)
      csv << exact_text(m.energy) << "," << k << "," << exact_text(c.t) << "," << exact_text(c.q[1]) << ","
          << exact_text(c.v[0]) << "," << exact_text(c.v[1]) << "\n";
    points += static_cast<long>(crossings.size());
  }
  return csv.str();
}

// ---- the restricted three-body problem -------------------------------------------------------------

/// Between C(L1) ≈ 3.188 and C(L3) ≈ 3.012 for the Earth–Moon μ: the necks at L1 and L2 are open,
/// so orbits near the Earth can reach the Moon and leave through L2, and a ring of forbidden
/// positions separates the Earth–Moon region from the outer one.
constexpr double kJacobi = 3.1;
/// The map covers [−1.2, 1.2]²: the Earth–Moon region, the Moon at x ≈ 0.988, L2 at x ≈ 1.156, and the
/// ring of forbidden positions around them; outside it starts mostly escape.
constexpr double kThreeBodyHalfWidth = 1.2;
/// The step of the run (vi-midpoint): 0.01, as 001's experiments take; close passes that it does not
/// resolve end as failed members (Newton, the built-in's step check), drawn apart.
constexpr double kThreeBodyH = 0.01;
/// A start that comes closer than the Earth's radius (6371 km in units of the Earth–Moon distance) to
/// either primary has collided (the built-in's collision_radius; conservative for the Moon, 0.0045).
/// Point masses would leave these to fail less plainly: at h = 0.01 most then end as Newton failures
/// at a close pass (measured: 247 of 264 failures, against 32 of 299 with this radius).
constexpr double kCollisionRadius = 0.0166;

std::string tb_sweep(const Resolution& r) {
  // |v|² = 2Ω − C with Ω = (x² + y²)/2 + (1 − μ)/r1 + μ/r2; NaN where 2Ω < C (forbidden).
  const std::string speed = "sqrt(x^2 + y^2 + 2*(1 - mu)/sqrt((x + mu)^2 + y^2) + 2*mu/sqrt((x - 1 + mu)^2 + y^2) - " +
                            exact_text(kJacobi) + ")";
  std::ostringstream s;
  s << "# Written by mechint reproduce chaos-maps: a MEGNO map of the restricted three-body problem\n"
    << "# (Earth-Moon) over initial positions at the Jacobi constant C = " << exact_text(kJacobi)
    << "; the velocity perpendicular to the position,\n# counter-clockwise, its magnitude from C (NaN where 2*Omega < C: "
       "the forbidden region).\n"
    << "system = \"three-body\"\nmethod = \"vi-midpoint\"\nh = " << exact_text(kThreeBodyH)
    << "\nt_end = " << exact_text(r.tb_t_end) << "\n\n[set]\nindicators = \"on\"\ncollision_radius = "
    << exact_text(kCollisionRadius) << "\n\n[vary]\n"
    << "x = " << cell_centres(-kThreeBodyHalfWidth, kThreeBodyHalfWidth, r.tb_grid) << "\n"
    << "y = " << cell_centres(-kThreeBodyHalfWidth, kThreeBodyHalfWidth, r.tb_grid) << "\n\n[derived]\n"
    << "vx = \"-y/sqrt(x^2 + y^2)*" << speed << "\"\n"
    << "vy = \"x/sqrt(x^2 + y^2)*" << speed << "\"\n\n"
    << "[sweep]\nrecord = [\"final\", \"megno\", \"lyapunov\", \"steps\", \"cpu_s\"]\n";
  return s.str();
}

/// A finished member this far from the barycentre at t_end has left the Earth–Moon system.
constexpr double kEscapedRadius = 3.0;

// ---- counting and writing --------------------------------------------------------------------------

/// ⟨Y⟩ above kChaotic at t_end is chaotic; below kRegular, regular: on a torus ⟨Y⟩ tends to 2 from
/// below (measured here: a mean of 1.4 at t = 200, 1.6 at t = 500 over the E = 1/12 map), near a
/// stable periodic orbit to 0; between the two, undecided at this t_end.
constexpr double kChaotic = 4.0;
constexpr double kRegular = 2.5;

struct Counts {
  long members = 0, allowed = 0, forbidden = 0, failed = 0, chaotic = 0, regular = 0;
  double chaotic_fraction() const { return allowed ? double(chaotic) / double(allowed) : 0.0; }
  double regular_fraction() const { return allowed ? double(regular) / double(allowed) : 0.0; }
};

/// Fractions are of the allowed members (the grid points on the energy surface), failed ones
/// included in the denominator: they are part of the surface the map covers.
Counts count(const MegnoMap& map) {
  Counts c;
  for (const MapMember& m : map.members) {
    ++c.members;
    if (m.kind == MemberKind::kForbidden) {
      ++c.forbidden;
      continue;
    }
    ++c.allowed;
    if (m.kind == MemberKind::kFailed) {
      ++c.failed;
    } else if (m.megno > kChaotic) {
      ++c.chaotic;
    } else if (m.megno < kRegular) {
      ++c.regular;
    }
  }
  return c;
}

/// A failed member that came within the collision radius of a primary (the built-in's message; the
/// cell may be quoted).
bool collided(const MapMember& m) {
  return m.kind == MemberKind::kFailed && m.status.find("collision with a primary") != std::string::npos;
}

/// maps.csv's `kind`: a failed member that collided with a primary is told apart from the others
/// (Newton, a rejected step), so that the figure can draw them apart.
const char* kind_name(const MapMember& m) {
  if (m.kind == MemberKind::kFailed) return collided(m) ? "collision" : "failed";
  return m.kind == MemberKind::kOk ? "ok" : "forbidden";
}

void append_rows(std::ostringstream& csv, const std::string& map_name, const MegnoMap& map) {
  for (const MapMember& m : map.members) {
    csv << map_name << "," << exact_text(m.u) << "," << exact_text(m.v) << "," << kind_name(m) << ",";
    if (m.kind == MemberKind::kOk) csv << exact_text(m.megno) << "," << exact_text(m.lyapunov);
    else csv << ",";
    csv << "\n";
  }
}

nlohmann::json counts_json(const Counts& c, const MegnoMap& map) {
  return {{"members", c.members}, {"allowed", c.allowed}, {"forbidden", c.forbidden}, {"failed", c.failed},
          {"chaotic", c.chaotic}, {"regular", c.regular}, {"chaotic_fraction", c.chaotic_fraction()},
          {"regular_fraction", c.regular_fraction()}, {"wall_s", map.wall_s}, {"cpu_s", map.cpu_s}};
}

std::string percent(double f) { return format_number(100.0 * f, 3) + " %"; }

void run(const app::ExperimentContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  const Resolution r = reduced() ? kReduced : kFull;
  const fs::path sweeps = ctx.out_dir / "sweeps";
  fs::create_directories(sweeps);
  app::write_text_atomically((ctx.out_dir / "henon-heiles.toml").string(), kHenonHeilesModel);

  std::vector<HenonHeilesMap> hh;
  for (const auto& [energy, label] : {std::pair{1.0 / 12, "1/12"}, {1.0 / 8, "1/8"}, {1.0 / 6, "1/6"}}) {
    const auto y = hh_y_range(energy);
    hh.push_back({energy, label, y.first, y.second, std::sqrt(2.0 * energy), {}});
    const std::string name = "henon-heiles-E" + std::to_string(hh.size());
    ctx.log << "  Henon-Heiles E = " << label << ": " << r.hh_grid << " x " << r.hh_grid << " members, t_end "
            << format_number(r.hh_t_end) << std::endl;
    hh.back().map = run_megno_map(name, hh_sweep(energy, y, hh.back().y_dot_max, r), sweeps, "y", "y_dot");
  }
  ctx.log << "  three-body C = " << format_number(kJacobi) << ": " << r.tb_grid << " x " << r.tb_grid
          << " members, t_end " << format_number(r.tb_t_end) << std::endl;
  const MegnoMap tb = run_megno_map("three-body", tb_sweep(r), sweeps, "x", "y", {"x_final", "y_final"});
  long collisions = 0;
  for (const MapMember& m : tb.members) collisions += collided(m);
  long escaped = 0, escaped_from_outside = 0;  // outside: beyond the forbidden ring (r > 1.1 at C = 3.1)
  for (const MapMember& m : tb.members)
    if (m.kind == MemberKind::kOk && std::hypot(m.extra[0], m.extra[1]) > kEscapedRadius) {
      ++escaped;
      escaped_from_outside += std::hypot(m.u, m.v) > 1.1;
    }

  ctx.log << "  Poincare sections: " << r.orbits << " orbits per energy, t_end " << format_number(r.section_t_end)
          << std::endl;
  const auto sections_start = std::chrono::steady_clock::now();
  // One task per energy, each on its own model and integrators: the sections share nothing.
  std::vector<std::future<std::pair<std::string, long>>> tasks;
  for (const HenonHeilesMap& m : hh)
    tasks.push_back(std::async(std::launch::async, [&m, &r] {
      long points = 0;
      const auto model = kernel::ModelAdapter<HenonHeiles>::kernels(HenonHeiles{});
      std::string csv = hh_sections(m, *model, r, points);
      return std::pair{std::move(csv), points};
    }));
  std::ostringstream sections("energy,orbit,t,y,x_dot,y_dot\n", std::ios::ate);
  long section_points = 0;
  for (auto& task : tasks) {
    auto [csv, points] = task.get();
    sections << csv;
    section_points += points;
  }
  const double sections_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sections_start).count();

  // maps.csv: map,u,v,kind,megno,lyapunov — u, v the varied pair (y, y_dot or x, y); kind ok,
  // forbidden, collision or failed.
  std::ostringstream maps("map,u,v,kind,megno,lyapunov\n", std::ios::ate);
  nlohmann::json j;
  j["resolution"] = {{"reduced", reduced()}, {"hh_grid", r.hh_grid}, {"hh_t_end", r.hh_t_end}, {"hh_method", kHenonHeilesMethod},
                     {"hh_h", kHenonHeilesH}, {"orbits", r.orbits}, {"section_t_end", r.section_t_end},
                     {"tb_grid", r.tb_grid}, {"tb_t_end", r.tb_t_end}, {"tb_h", kThreeBodyH}};
  j["thresholds"] = {{"chaotic", kChaotic}, {"regular", kRegular}};
  std::ostringstream table;
  table << "| E | members | on the surface | ⟨Y⟩ > 4 (chaotic) | ⟨Y⟩ < 2.5 (regular) | failed | sweep wall s |\n"
           "|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < hh.size(); ++i) {
    const std::string name = "henon-heiles-E" + std::to_string(i + 1);
    append_rows(maps, name, hh[i].map);
    const Counts c = count(hh[i].map);
    nlohmann::json entry = counts_json(c, hh[i].map);
    entry["energy"] = hh[i].energy;
    entry["label"] = hh[i].label;
    entry["y_range"] = {hh[i].y_lo, hh[i].y_hi};
    entry["y_dot_max"] = hh[i].y_dot_max;
    j["henon_heiles"][name] = entry;
    table << "| " << hh[i].label << " | " << c.members << " | " << c.allowed << " | " << percent(c.chaotic_fraction())
          << " | " << percent(c.regular_fraction()) << " | " << c.failed << " | " << format_number(hh[i].map.wall_s, 3)
          << " |\n";
  }
  append_rows(maps, "three-body", tb);
  const Counts tbc = count(tb);
  j["three_body"] = counts_json(tbc, tb);
  j["three_body"]["jacobi"] = kJacobi;
  j["three_body"]["mu"] = systems::ThreeBody{}.mu;
  j["three_body"]["half_width"] = kThreeBodyHalfWidth;
  j["three_body"]["escaped"] = escaped;
  j["three_body"]["collisions"] = collisions;
  j["three_body"]["collision_radius"] = kCollisionRadius;
  j["three_body"]["escaped_from_outside_the_ring"] = escaped_from_outside;
  j["three_body"]["escaped_radius"] = kEscapedRadius;
  j["sections"] = {{"points", section_points}, {"wall_s", sections_s}};
  app::write_text_atomically((ctx.out_dir / "maps.csv").string(), maps.str());
  app::write_text_atomically((ctx.out_dir / "sections.csv").string(), sections.str());

  double sweep_cpu_s = tb.cpu_s, sweep_wall_s = tb.wall_s;
  for (const HenonHeilesMap& m : hh) sweep_cpu_s += m.map.cpu_s, sweep_wall_s += m.map.wall_s;
  j["sweeps"] = {{"cpu_s", sweep_cpu_s}, {"wall_s", sweep_wall_s}, {"hardware_threads", std::thread::hardware_concurrency()}};
  const auto plot_start = std::chrono::steady_clock::now();
  // results.json first: the plotting script reads the boxes and C from it.
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");
  const bool drawn = app::draw_figures("chaos_maps.py", ctx.out_dir, ctx.log);
  const double plot_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - plot_start).count();
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  j["wall_s"] = {{"total", total_s}, {"figures", plot_s}};
  app::write_text_atomically((ctx.out_dir / "results.json").string(), j.dump(2) + "\n");

  std::ostringstream report;
  report << "# MEGNO maps: Hénon–Heiles and the Earth–Moon restricted three-body problem\n\n"
         << (reduced() ? "**Reduced resolution** (MECHINT_CHAOS_MAPS_REDUCED is set): coarser grids over shorter "
                         "times than the full experiment.\n\n"
                       : "")
         << "MEGNO ⟨Y⟩ (Cincotta & Simó 2000) from the exact tangent map of each step (`indicators=on`), one "
            "sweep member per grid point (`sweeps/*.toml`, rerun with `mechint sweep`). ⟨Y⟩ → 2 on invariant tori, "
            "→ 0 near stable periodic orbits, grows as λt/2 in chaotic motion; a member is counted chaotic "
            "when ⟨Y⟩ > 4 at t_end, regular when ⟨Y⟩ < 2.5 (on a torus it tends to 2 from below, slowly), undecided between. Fractions are of the members on the energy "
            "surface (the allowed grid points; failed ones in the denominator).\n\n"
         << "## Hénon–Heiles, section x = 0\n\n"
         << r.hh_grid << " × " << r.hh_grid << " starts (y, ẏ) over the box of the allowed region at each energy, ẋ > 0 "
         << "from the energy; " << kHenonHeilesMethod << ", h = " << format_number(kHenonHeilesH) << ", t_end = "
         << format_number(r.hh_t_end) << ".\n\n"
         << table.str()
         << "\nHénon & Heiles (1964) found the section covered by invariant curves at E = 1/12, curves and a "
            "chaotic sea of comparable extent at E = 1/8, and mostly chaos at E = 1/6. The fractions above are "
            "measured at a finite t_end: a member whose chaos is slow (near an island's edge) can still read as "
            "regular.\n\nPoincaré sections: "
         << r.orbits << " orbits per energy from ẏ = 0, y spread over the allowed interval, t_end = "
         << format_number(r.section_t_end) << ", same rule and step; " << section_points
         << " upward crossings of x = 0 in all, each located between two steps by quintic Hermite interpolation "
            "(`sections.csv`).\n\n"
         << "## Restricted three-body problem, Earth–Moon\n\n"
         << "μ = " << format_number(systems::ThreeBody{}.mu, 12) << ", Jacobi constant C = " << format_number(kJacobi)
         << "; starts (x, y) on a " << r.tb_grid << " × " << r.tb_grid << " grid over [−" << format_number(kThreeBodyHalfWidth)
         << ", " << format_number(kThreeBodyHalfWidth) << "]², velocity perpendicular to the position from the "
            "barycentre, counter-clockwise in the rotating frame, |v|² = 2Ω − C; vi-midpoint, h = "
         << format_number(kThreeBodyH) << ", t_end = " << format_number(r.tb_t_end) << "; a member collides when it "
            "comes closer than the Earth's radius (" << format_number(kCollisionRadius) << ") to either primary.\n\n"
         << "| members | on the surface | forbidden (2Ω < C) | failed (Newton, rejected step, collision) | ⟨Y⟩ > 4 | "
            "⟨Y⟩ < 2.5 | sweep wall s |\n|---|---|---|---|---|---|---|\n"
         << "| " << tbc.members << " | " << tbc.allowed << " | " << tbc.forbidden << " | " << tbc.failed << " | "
         << percent(tbc.chaotic_fraction()) << " | " << percent(tbc.regular_fraction()) << " | "
         << format_number(tb.wall_s, 3) << " |\n\n"
         << escaped << " of the " << tbc.allowed - tbc.failed << " finished members end farther than "
         << format_number(kEscapedRadius) << " from the barycentre (escaped), " << escaped_from_outside
         << " of them from starts beyond the forbidden ring (r > 1.1), where the counter-clockwise velocity adds to the "
            "frame's rotation; ⟨Y⟩ ≈ 2 of an escape says that nearby escapes separate linearly, not that the motion is "
            "bounded. Of the " << tbc.failed << " failed members, " << collisions
         << " collided; the others met a close pass that the step does not resolve (Newton does not converge, or "
            "the step check rejects an encounter closer than a quarter of the step's length).\n\n"
         << "## Cost\n\nWall time " << format_number(total_s, 3) << " s in all (sections " << format_number(sections_s, 3)
         << " s, figures " << format_number(plot_s, 3) << " s); the sweeps' members took " << format_number(sweep_cpu_s, 3)
         << " s of CPU in " << format_number(sweep_wall_s, 3) << " s of wall time on " << std::thread::hardware_concurrency()
         << " hardware threads.\n";
  if (drawn)
    report << "\n![Hénon–Heiles MEGNO maps and Poincaré sections](henon_heiles.png)\n\n"
              "![Earth–Moon MEGNO map](three_body.png)\n";
  app::write_text_atomically((ctx.out_dir / "report.md").string(), report.str());
}

}  // namespace chaos_maps_experiment

app::ExperimentEntry chaos_maps_entry() {
  return {"chaos-maps",
          "MEGNO maps (sweeps with indicators=on): Henon-Heiles at E = 1/12, 1/8, 1/6 beside Poincare sections, "
          "Earth-Moon restricted three-body problem over positions at a fixed Jacobi constant",
          chaos_maps_experiment::run};
}

}  // namespace mechint::experiments
