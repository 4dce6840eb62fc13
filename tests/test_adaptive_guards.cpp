// adapt=sundman cannot go wrong silently (docs/adaptive-steps.md, "Failures"; issue 63): a time
// scale that crosses zero along the motion (s = x on the e = 0.95 orbit of the example, which ran to
// exit 0 with the orbit mirrored) stops the run with exit 3 naming the step and its time; a time
// scale whose physical time stalls (s = 1e-300, s = x^2: they ran without end) stops with exit 3 as
// well, and no output file is left. Legitimate eccentric orbits (e = 0.95 and 0.99 with s = r^1.5,
// from pericentre and from apocentre) run to their end and agree with rk78. The guard itself is fed
// step sequences whose sums are known in closed form: a power-law decay whose time converges just
// past the row it steps to stops within 2^4 times the steps it took to start decaying; a periodic one
// as eccentric as e = 0.9999 never stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_harness.hpp"
#include "kernel/physical_time_guard.hpp"

namespace mechint {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::parse_csv;
using testing::run_mechint;

/// The example's orbit, a = 1, mu = 1, of eccentricity `e`, started at pericentre (x = 1 − e) or at
/// apocentre (x = −(1 + e)), with the given time scale.
std::string orbit_model(const std::string& name, const std::string& time_scale, double e, bool apocentre) {
  const double r = apocentre ? 1.0 + e : 1.0 - e;
  const double speed = std::sqrt((apocentre ? 1.0 - e : 1.0 + e) / r);  // vis-viva with a = mu = 1
  std::ostringstream text;
  text << "name = \"" << name << "\"\n"
       << "coordinates = [\"x\", \"y\"]\n"
       << "parameters = { mu = 1.0 }\n"
       << "lagrangian = \"0.5*(x_dot^2 + y_dot^2) + mu/sqrt(x^2 + y^2)\"\n"
       << "domain = [\"x^2 + y^2\"]\n"
       << "time_scale = \"" << time_scale << "\"\n"
       << "[initial]\n"
       << "x = " << (apocentre ? -r : r) << "\n"
       << "y_dot = " << (apocentre ? -speed : speed) << "\n";
  return testing::write_harness_file("adaptive_guards", name + ".toml", text.str());
}

/// stderr without the notice of a model compiled by this run (its one-line rule is tested where the
/// notice is made): what the failure itself prints.
std::string failure_lines(const std::string& err) {
  std::string kept, line;
  std::istringstream in(err);
  while (std::getline(in, line))
    if (line.find("compiled model") == std::string::npos) kept += line + "\n";
  return kept;
}

void expect_one_line_exit_3(const CliResult& r, const fs::path& out, const std::string& says) {
  EXPECT_EQ(r.status, 3) << r.err;
  const std::string err = failure_lines(r.err);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("step "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t = "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << out;
}

TEST(AdaptiveGuards, ATimeScaleCrossingZeroOnTheOrbitStops) {
  // The case: s = x on the example's orbit, which crosses x = 0 soon after pericentre.
  const std::string model = orbit_model("crossing", "x", 0.95, false);
  for (const std::string method : {"vi-gauss4", "vi-midpoint", "vi-trapezoid"}) {
    const fs::path out = fs::path(model).parent_path() / ("crossing-" + method + ".csv");
    const CliResult r = run_mechint("run " + model + " --method " + method +
                                    " --set adapt=sundman --h 0.01 --t-end 10 --out " + out.string());
    expect_one_line_exit_3(r, out, "time");
    // It stops where the orbit meets x = 0, well before t = 1 (where the mirrored orbit was reported).
    const auto at = r.err.find("t = ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_LT(std::stod(r.err.substr(at + 4)), 0.5) << r.err;
  }
}

TEST(AdaptiveGuards, AStalledPhysicalTimeStops) {
  // s = 1e-300: each step advances t by 1e-302; s = x^2: t converges to the instant x = 0.
  for (const std::string scale : {"1e-300", "x^2", "exp(-1/x^2)"}) {
    const std::string model = orbit_model("stalled", scale, 0.95, false);
    const fs::path out = fs::path(model).parent_path() / "stalled.csv";
    const CliResult r =
        run_mechint("run " + model + " --method vi-gauss4 --set adapt=sundman --h 0.01 --t-end 10 --out " + out.string());
    SCOPED_TRACE(scale);
    expect_one_line_exit_3(r, out, "time");
  }
}

TEST(AdaptiveGuards, EccentricOrbitsRunToTheirEnd) {
  // s = r^1.5 varies by ((1 - e)/(1 + e))^1.5 over the orbit: 3.6e-4 at e = 0.99. Two orbits from
  // each end, against rk78 at a tight tolerance (an independent method).
  for (const double e : {0.95, 0.99}) {
    for (const bool apocentre : {false, true}) {
      SCOPED_TRACE("e = " + std::to_string(e) + (apocentre ? " from apocentre" : " from pericentre"));
      const std::string model = orbit_model("eccentric", "(x^2 + y^2)^0.75", e, apocentre);
      const CliResult sundman = run_mechint("run " + model +
                                            " --method vi-gauss4 --set adapt=sundman --h 0.01 --t-end 12.56 "
                                            "--output-every 12.56 --out -");
      ASSERT_EQ(sundman.status, 0) << sundman.err;
      const CliResult reference = run_mechint("run " + model +
                                              " --method rk78 --set rtol=1e-13 --set atol=1e-13 --h 0.01 "
                                              "--t-end 12.56 --output-every 12.56 --out -");
      ASSERT_EQ(reference.status, 0) << reference.err;
      const auto a = parse_csv(sundman.out), b = parse_csv(reference.out);
      ASSERT_EQ(a.rows, 2u);
      ASSERT_EQ(b.rows, 2u);
      EXPECT_DOUBLE_EQ(a["t"][1], 12.56);
      EXPECT_NEAR(a["x"][1], b["x"][1], 1e-4);
      EXPECT_NEAR(a["y"][1], b["y"][1], 1e-4);
    }
  }
}

TEST(AdaptiveGuards, EnergyStepsStayWithinTheirRange) {
  // adapt=energy cannot collapse: its step stays within [h/64, 64 h] (docs/adaptive-steps.md). On the
  // e = 0.95 orbit it falls back rather than stall, and ends at t_end.
  const std::string model = orbit_model("energy-steps", "(x^2 + y^2)^0.75", 0.95, false);
  const CliResult r = run_mechint("run " + model + " --method vi-midpoint --set adapt=energy --h 0.001 --t-end 1 "
                                  "--output-every 1 --out -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  ASSERT_EQ(t.rows, 2u);
  EXPECT_DOUBLE_EQ(t["t"][1], 1.0);
}


/// Feeds `guard` the physical steps dt(k), k = 1..steps, toward a row at `target`; returns the step it
/// stopped at (0: it did not).
template <class Step>
long first_stop(double target, long steps, Step dt) {
  kernel::PhysicalTimeGuard guard;
  guard.start(0.01);
  double t = 0.0;
  for (long k = 1; k <= steps; ++k) {
    const double next = t + dt(k);
    try {
      guard.after_step(k, t, next, target, dt(k) / 0.01);
    } catch (const NumericalFailure&) {
      return k;
    }
    t = next;
  }
  return 0;
}

TEST(PhysicalTimeGuard, ARowJustShortOfTheConvergedTimeStopsSoonAfterTheDecayStarts) {
  // dt = c (1 + k/K)^(-4/3) (s = x^4 as it vanishes): the time converges to 3 c K. A row at 0.99 of
  // it is reached only after about (1/0.01)^3 K = 10^6 K steps; the decay starts near k = K.
  constexpr double c = 1e-6;
  constexpr long K = 1000;
  const auto decay = [&](long k) { return c * std::pow(1.0 + static_cast<double>(k) / K, -4.0 / 3.0); };
  const long stopped = first_stop(0.99 * 3.0 * c * K, 1L << 26, decay);
  EXPECT_GT(stopped, 0);
  // Its gains per doubling shrink from about 4 K on: 2^4 times that, up to the windows' powers of two.
  EXPECT_LE(stopped, 128 * K);
  // A row the decay passes within a few times its onset is reached: 0.4 of the limit at k ≈ 1.2 K.
  EXPECT_EQ(first_stop(0.4 * 3.0 * c * K, 8 * K, decay), 0);
}

TEST(PhysicalTimeGuard, APeriodicTimeScaleAsEccentricAsTheGuardAllowsNeverStops) {
  // s = r^1.5 on Kepler orbits of e = 0.99 and 0.9999, sampled at the eccentric anomaly of each step
  // (r = 1 - e cos E; the steps of a Sundman transformation are about uniform in E), 2^20 steps of
  // 2^10 and 2^14 per orbit toward a row far ahead.
  // From pericentre and from apocentre.
  for (const double e : {0.99, 0.9999}) {
    for (const long per_orbit : {1L << 10, 1L << 14}) {
      for (const double phase : {0.0, 0.5}) {
        const auto orbit = [&](long k) {
          const double E = 2.0 * M_PI * (static_cast<double>(k) / static_cast<double>(per_orbit) + phase);
          return 0.01 * std::pow(1.0 - e * std::cos(E), 1.5);
        };
        EXPECT_EQ(first_stop(1e3, 1L << 20, orbit), 0)
            << "e = " << e << ", " << per_orbit << " steps per orbit, phase " << phase;
      }
    }
  }
}

}  // namespace
}  // namespace mechint
