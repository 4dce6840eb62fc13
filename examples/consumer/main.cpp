// A program of its own on the installed mechint (DESIGN §3): a model struct templated on the scalar
// run by a method of order 8, a constrained model stepped by its own loop, a model file, a sweep.
// Usage: consumer MODEL.toml SWEEP.toml. Exits with status 1 unless every check holds.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mechint/mechint.hpp"

struct Duffing {  // any struct with these members is a model; its L is differentiated once by AD
  static constexpr int kDim = 1, kNumConstraints = 0, kNumSymmetries = 0;
  double k = 1, c = 0.5;
  template <class T> T lagrangian(const mechint::Vec<T, 1>& q, const mechint::Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0] - 0.5 * k * q[0] * q[0] - 0.25 * c * q[0] * q[0] * q[0] * q[0];
  }
};

struct Pendulum2D {  // a planar pendulum in Cartesian coordinates, held by its length constraint
  static constexpr int kDim = 2, kNumConstraints = 1, kNumSymmetries = 0;
  double m = 1, l = 1, g = 9.81;
  template <class T> T lagrangian(const mechint::Vec<T, 2>& q, const mechint::Vec<T, 2>& v) const {
    return 0.5 * m * mechint::squared_norm(v) - m * g * q[1];
  }
  template <class T> mechint::Vec<T, 1> constraints(const mechint::Vec<T, 2>& q) const {
    return mechint::Vec<T, 1>(mechint::squared_norm(q) - l * l);
  }
};

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL.toml SWEEP.toml\n", argv[0]);
    return 2;
  }
  bool ok = true;
  const auto check = [&ok](bool holds, const char* what) {
    std::printf("%-60s %s\n", what, holds ? "ok" : "FAILED");
    ok = ok && holds;
  };
  try {
    // A method of order 8 on a model of one's own: the energy stays at its start to ~h^8.
    mechint::System duffing = mechint::System::from_model(Duffing{}, {{"q1", 1.0}});
    mechint::Trajectory tr = duffing.run({.method = "vi-gauss8", .h = 0.05, .t_end = 100.0});
    const std::span<const double> e = tr["energy"], x = tr["q1"];
    double drift = 0;
    for (double ei : e) drift = std::max(drift, std::abs(ei - e[0]));
    std::printf("Duffing, vi-gauss8: %zu rows, E0 = %.6f, max |E - E0| = %.2e\n", tr.rows(), e[0], drift);
    check(tr.rows() == 2001 && drift <= 1e-9, "energy of a model struct kept by vi-gauss8");

    // Stepping by one's own loop gives the rows of run(), bit for bit.
    mechint::Integrator it = duffing.integrator("vi-gauss8", 0.05);
    it.start({1.0}, {0.0});
    it.step(2000);
    check(it.t() == 100.0 && it.q()[0] == x.back() && it.energy() == e.back(), "the integrator's state is run()'s last row");

    // A constraint held to round-off by the midpoint rule, from rest at the height of the pivot.
    mechint::System pendulum = mechint::System::from_model(Pendulum2D{}, {{"q1", 1.0}});
    mechint::Trajectory swing = pendulum.run({.method = "vi-midpoint", .h = 0.01, .t_end = 100.0});
    double worst_residual = 0;
    for (double g : swing["constraint_residual"]) worst_residual = std::max(worst_residual, std::abs(g));
    std::printf("pendulum, vi-midpoint: max |g(q)| = %.2e\n", worst_residual);
    check(worst_residual <= 1e-12, "a constraint held to round-off");

    // A model file, compiled on first use, run with its defaults.
    mechint::System model = mechint::System::open(argv[1]);
    mechint::Trajectory m = model.run({.t_end = 1.0});
    check(m.rows() > 1 && m.columns().front() == "t" && std::isfinite(m["energy"].back()), "a model file runs");

    // A sweep file: one row of its summary per member, each finished.
    mechint::Table summary = mechint::sweep(argv[2], 2);
    bool all_ok = summary.rows() > 0;
    for (const std::string& status : summary.text("status")) all_ok = all_ok && status == "ok";
    std::printf("sweep: %zu members\n", summary.rows());
    check(all_ok, "every member of the sweep finished");

    // A failure is a mechint::Error with the command line's exit code.
    try {
      duffing.run({.method = "no-such-method"});
      check(false, "an unknown method is refused");
    } catch (const mechint::Error& error) {
      check(error.exit_code() == 2, "an unknown method is refused with exit code 2");
    }
  } catch (const mechint::Error& error) {
    std::fprintf(stderr, "mechint: %s (exit code %d)\n", error.what(), static_cast<int>(error.exit_code()));
    return 1;
  }
  std::puts(ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
