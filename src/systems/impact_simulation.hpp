#pragma once
/// \file
/// `Simulation` of a model with unilateral constraints (walls), stepped by the impact driver with
/// one of the two Störmer–Verlet integrators in momentum form: `vi-trapezoid` (004 eq. 16) or
/// `stormer-verlet` (generalized, Lobatto IIIA–IIIB). Output: t, coordinates, momenta, energy H,
/// and optionally H̃ (the integrator's own truncated modified Hamiltonian).

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/parameters.hpp"
#include "app/simulation.hpp"
#include "mechint/integrate/impact_driver.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"

namespace mechint::systems {

/// The methods of systems with impacts.
inline std::vector<std::string> impact_methods() { return {"vi-trapezoid", "stormer-verlet"}; }

/// `impact`, `window_before`, `window_after` (004 §III-C–E; defaults in impact_laws.hpp).
inline std::vector<app::ParameterSpec> impact_parameters() {
  const ImpactOptions defaults;
  return {app::ParameterSpec::choice("impact", {"mhc", "ctec", "dtec"},
                                     "impact law: mhc (004 eq. 28, windowed), ctec (eq. 26), dtec (eq. 25)"),
          app::ParameterSpec::real("window_before", defaults.window_before,
                                   "MHC window before an impact, seconds", 1e-12),
          app::ParameterSpec::real("window_after", defaults.window_after,
                                   "MHC window after an impact, seconds", 1e-12)};
}

inline ImpactOptions read_impact_options(const app::ParameterValues& v, bool walls) {
  ImpactOptions o;
  o.law = parse_impact_law(v.choice("impact"));
  o.window_before = v.real("window_before");
  o.window_after = v.real("window_after");
  o.enabled = walls;
  return o;
}

template <class M>
class ImpactSimulation final : public app::Simulation {
 public:
  static constexpr int n = M::kDim;

  ImpactSimulation(M model, std::vector<std::string> coordinates, std::vector<std::string> momenta,
                   bool htilde_column, VecD<n> q0, VecD<n> p0, ImpactOptions options)
      : model_(std::move(model)),
        coordinates_(std::move(coordinates)),
        momenta_(std::move(momenta)),
        htilde_column_(htilde_column),
        q0_(q0),
        p0_(p0),
        options_(options) {}

  std::vector<std::string> columns() const override {
    std::vector<std::string> c{"t"};
    c.insert(c.end(), coordinates_.begin(), coordinates_.end());
    c.insert(c.end(), momenta_.begin(), momenta_.end());
    c.push_back("energy");
    if (htilde_column_) c.push_back("htilde");
    return c;
  }

  void run(const app::RunSettings& settings, const app::RowSink& sink) override {
    if (settings.method == "vi-trapezoid") return run_with<TrapezoidFlow<M>>(settings, sink);
    if (settings.method == "stormer-verlet") return run_with<StormerVerletFlow<M>>(settings, sink);
    throw std::invalid_argument("unknown method '" + settings.method + "' (known: vi-trapezoid, stormer-verlet)");
  }

 private:
  template <class Flow>
  void run_with(const app::RunSettings& settings, const app::RowSink& sink) {
    ImpactDriver<Flow> driver(model_, settings.h, options_);
    driver.start(q0_, p0_);
    const long steps = app::steps_to_reach(settings.t_end, settings.h);
    const long stride = app::output_stride(settings.output_every, settings.h);
    std::vector<double> row;
    auto emit = [&] {
      row.clear();
      row.push_back(driver.time());
      for (int i = 0; i < n; ++i) row.push_back(driver.q()[i]);
      for (int i = 0; i < n; ++i) row.push_back(driver.p()[i]);
      row.push_back(driver.energy());
      if (htilde_column_) row.push_back(driver.htilde());
      for (double x : row)
        if (!std::isfinite(x))
          throw std::runtime_error("non-finite state at t = " + format_number(driver.time()));
      sink(row);
    };
    emit();
    while (driver.step_index() < steps) {
      driver.step();
      if (driver.step_index() % stride == 0 || driver.step_index() == steps) emit();
    }
  }

  M model_;
  std::vector<std::string> coordinates_, momenta_;
  bool htilde_column_;
  VecD<n> q0_, p0_;
  ImpactOptions options_;
};

}  // namespace mechint::systems
