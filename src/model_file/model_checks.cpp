#include "model_file/model_checks.hpp"

#include <ceres/jet.h>

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/diagnostics.hpp"
#include "model_file/evaluate.hpp"
#include "model_file/model_file.hpp"

namespace mechint::model_file {
namespace {

using Dual = ceres::Jet<double, 1>;

/// Relative defect above which a generator is not a symmetry. Round-off of evaluating the tree is
/// ~1e-15 of its terms; a broken symmetry shows at O(1).
constexpr double kTolerance = 1e-8;

struct Sample {
  std::vector<double> q, v;
};

/// The start, and for an unconstrained model six points around it, fixed (a linear congruential
/// sequence), spread over the scale of each value.
std::vector<Sample> samples(const ModelDescription& d) {
  std::vector<Sample> out{{d.initial_q, d.initial_v}};
  if (!d.constraints.empty()) return out;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto uniform = [&state] {  // in [-1, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
  };
  for (int k = 0; k < 6; ++k) {
    Sample s = out.front();
    for (auto& x : s.q) x += 0.37 * (1.0 + std::abs(x)) * uniform();
    for (auto& x : s.v) x += 0.37 * (1.0 + std::abs(x)) * uniform();
    out.push_back(std::move(s));
  }
  return out;
}

bool in_domain(const ModelDescription& d, const std::vector<double>& q) {
  SymbolValues<double> values;
  for (const auto& p : d.parameters) values.parameters.push_back(p.value);
  values.q = q;
  values.v.assign(q.size(), 0.0);
  for (const auto& e : d.domain)
    if (!(evaluate(e, values) > 0.0)) return false;
  return true;
}

SymbolValues<Dual> duals(const ModelDescription& d, const std::vector<double>& q, const std::vector<double>& dq,
                         const std::vector<double>& v, const std::vector<double>& dv) {
  SymbolValues<Dual> s;
  for (const auto& p : d.parameters) s.parameters.push_back(p.value);
  for (std::size_t i = 0; i < q.size(); ++i) {
    s.q.emplace_back(q[i], 0);
    s.q.back().v[0] = dq[i];
    s.v.emplace_back(v[i], 0);
    s.v.back().v[0] = dv[i];
  }
  return s;
}

[[noreturn]] void refuse(const ModelDescription& d, std::size_t k, const std::string& what) {
  const SourcePosition& p = d.symmetries[k].front().position;
  throw InvalidInput(d.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": symmetry generator " +
                     std::to_string(k + 1) + " " + what);
}

/// Whether the velocity of coordinate `index` occurs anywhere in `e` (each distinct node once).
bool mentions_velocity(const Expression& e, int index) {
  std::unordered_set<const Expression*> seen;
  std::vector<const Expression*> stack{&e};
  while (!stack.empty()) {
    const Expression* node = stack.back();
    stack.pop_back();
    if (node->kind == Expression::Kind::kSymbol && node->symbol == SymbolKind::kVelocity && node->index == index)
      return true;
    for (const auto& a : node->args)
      if (seen.insert(&a).second) stack.push_back(&a);
  }
  return false;
}

}  // namespace

void check_mass_matrix(const ModelDescription& d) {
  const int n = static_cast<int>(d.coordinates.size());
  const int k = static_cast<int>(d.constraints.size());
  if (n == 0) return;
  // ∂²L/∂q̇_i∂q̇_j by central differences of the exact gradient over q̇ (a jet): exact to round-off
  // for a Lagrangian quadratic in q̇, and within O(δ²) otherwise, far below the rank threshold.
  // The gradient is taken kWidth entries at a time, so that any number of coordinates is checked.
  constexpr int kWidth = 32;
  using Slope = ceres::Jet<double, kWidth>;
  const auto slope = [](double value, int i, int first) {
    Slope s(value);
    if (i >= first && i < first + kWidth) s.v[i - first] = 1.0;
    return s;
  };
  const ExpressionProgram lagrangian(d.lagrangian);
  std::vector<Slope> workspace;
  const auto velocity_gradient = [&](int j, double shift, Eigen::VectorXd& out) {
    out.resize(n);
    for (int first = 0; first < n; first += kWidth) {
      SymbolValues<Slope> values;
      for (const auto& p : d.parameters) values.parameters.push_back(p.value);
      for (int i = 0; i < n; ++i) {
        values.q.push_back(Slope(d.initial_q[static_cast<std::size_t>(i)]));
        values.v.push_back(slope(d.initial_v[static_cast<std::size_t>(i)] + (i == j ? shift : 0.0), i, first));
      }
      const Slope l = lagrangian(values, workspace);
      for (int i = first; i < std::min(n, first + kWidth); ++i) out[i] = l.v[i - first];
    }
  };
  Eigen::MatrixXd bordered = Eigen::MatrixXd::Zero(n + k, n + k);
  Eigen::VectorXd plus, minus;
  for (int j = 0; j < n; ++j) {
    const double delta = 1e-3 * (1.0 + std::abs(d.initial_v[static_cast<std::size_t>(j)]));
    velocity_gradient(j, delta, plus);
    velocity_gradient(j, -delta, minus);
    bordered.col(j).head(n) = (plus - minus) / (2.0 * delta);
  }
  bordered.topLeftCorner(n, n) = (0.5 * (bordered.topLeftCorner(n, n) + bordered.topLeftCorner(n, n).transpose())).eval();
  if (k > 0) {
    for (int first = 0; first < n; first += kWidth) {
      SymbolValues<Slope> values;
      for (const auto& p : d.parameters) values.parameters.push_back(p.value);
      for (int i = 0; i < n; ++i) {
        values.q.push_back(slope(d.initial_q[static_cast<std::size_t>(i)], i, first));
        values.v.push_back(Slope(d.initial_v[static_cast<std::size_t>(i)]));
      }
      for (int c = 0; c < k; ++c) {
        const Slope g = evaluate(d.constraints[static_cast<std::size_t>(c)], values);
        for (int i = first; i < std::min(n, first + kWidth); ++i) bordered(n + c, i) = bordered(i, n + c) = g.v[i - first];
      }
    }
  }
  // Not finite: the start's other checks say where the model is not defined.
  if (!bordered.allFinite()) return;
  Eigen::FullPivLU<Eigen::MatrixXd> lu(bordered);
  lu.setThreshold(1e-9);  // pivots below 1e-9 of the largest: round-off and the differences' error
  if (lu.isInvertible()) return;
  std::string without;
  for (int i = 0; i < n; ++i)
    if (!mentions_velocity(d.lagrangian, i))
      without += (without.empty() ? "" : ", ") + d.coordinates[static_cast<std::size_t>(i)];
  const std::string why =
      !without.empty()
          ? "coordinate" + std::string(without.find(',') == std::string::npos ? " " : "s ") + without +
                " ha" + (without.find(',') == std::string::npos ? "s" : "ve") +
                " no kinetic term (its velocity does not occur in the Lagrangian): a coordinate without inertia is "
                "not one the equations of motion determine; give it a kinetic term, or eliminate it"
          : std::string(k > 0 ? "bordered by the constraints' Jacobian, " : "") +
                "no method can solve for the accelerations there; check the masses, the parameters and [initial]";
  fail_at(d.file, d.lagrangian.position, "the mass matrix d2L/dqdot2 is singular at the start: " + why);
}

SymmetryCheck check_symmetries(const ModelDescription& d) {
  SymmetryCheck result;
  const std::size_t n = d.coordinates.size();
  const std::vector<double> zero(n, 0.0);
  for (const Sample& s : samples(d)) {
    if (!in_domain(d, s.q)) continue;
    bool used = false;
    for (std::size_t k = 0; k < d.symmetries.size(); ++k) {
      // ξ(q) and its derivative along q̇: Dξ(q) q̇.
      std::vector<double> xi(n), dxi(n);
      const SymbolValues<Dual> along_v = duals(d, s.q, s.v, s.v, zero);
      for (std::size_t i = 0; i < n; ++i) {
        const Dual c = evaluate(d.symmetries[k][i], along_v);
        xi[i] = c.a;
        dxi[i] = c.v[0];
      }
      const double defect = evaluate(d.lagrangian, duals(d, s.q, xi, s.v, dxi)).v[0];
      // The size of L's variation along a move of ξ's size: Σ_j |∂L/∂q_j| max|ξ| + |∂L/∂q̇_j| max|Dξ q̇|.
      // Not the terms along ξ alone: a coordinate L does not depend on may still occur in it (a joint
      // angle inside rotations that cancel), and its ∂L/∂q_j is then round-off, as the defect is.
      double xi_size = 0.0, dxi_size = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        xi_size = std::max(xi_size, std::abs(xi[j]));
        dxi_size = std::max(dxi_size, std::abs(dxi[j]));
      }
      double scale = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        std::vector<double> e(n, 0.0);
        e[j] = 1.0;
        if (xi_size > 0.0) scale += xi_size * std::abs(evaluate(d.lagrangian, duals(d, s.q, e, s.v, zero)).v[0]);
        if (dxi_size > 0.0) scale += dxi_size * std::abs(evaluate(d.lagrangian, duals(d, s.q, zero, s.v, e)).v[0]);
      }
      if (!std::isfinite(defect) || !std::isfinite(scale)) continue;  // a point where L is not defined
      used = true;
      // On the constraint manifold, the flow of ξ must keep g = 0: ∇g · ξ = 0.
      for (std::size_t c = 0; c < d.constraints.size(); ++c) {
        const Dual g = evaluate(d.constraints[c], duals(d, s.q, xi, s.v, zero));
        double size = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
          std::vector<double> e(n, 0.0);
          e[j] = xi[j];
          size += std::abs(evaluate(d.constraints[c], duals(d, s.q, e, s.v, zero)).v[0]);
        }
        if (!std::isfinite(g.v[0]) || (size > 0.0 && std::abs(g.v[0]) > kTolerance * size))
          refuse(d, k, "moves the configuration off constraint " + std::to_string(c + 1) + " (grad g . xi = " +
                           format_number(g.v[0], 3) + " at the start): it is not a symmetry of the constrained system");
      }
      if (scale == 0.0) continue;  // nothing moves L here: no test of L at this point
      const double relative = std::abs(defect) / scale;
      result.largest_defect = std::max(result.largest_defect, relative);
      if (relative > kTolerance)
        refuse(d, k, "is not a symmetry of the Lagrangian: dL/ds along it is " + format_number(defect, 3) +
                         " at q = (" + [&] {
                           std::string t;
                           for (std::size_t i = 0; i < n; ++i) t += (i ? ", " : "") + format_number(s.q[i], 4);
                           return t;
                         }() + "), relative " + format_number(relative, 2) + " (its Noether momentum would not be conserved)");
    }
    result.points += used;
  }
  if (!d.symmetries.empty() && result.points == 0)
    refuse(d, 0, "cannot be checked: the Lagrangian or a generator is not finite at the start nor at any sample "
                 "point around it");
  return result;
}

}  // namespace mechint::model_file
