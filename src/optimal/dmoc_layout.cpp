#include "mechint/optimal/dmoc_layout.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace mechint::optimal {

namespace {

/// Slot of a nonzero, created on first use.
int slot_of(std::map<std::pair<int, int>, int>& slots, std::vector<SparseEntry>& entries, int row, int col) {
  const auto [it, inserted] = slots.emplace(std::make_pair(row, col), static_cast<int>(entries.size()));
  if (inserted) entries.push_back({row, col});
  return it->second;
}

void validate(const DmocProblem& p, int n, int m) {
  const auto sized = [](const Eigen::VectorXd& x, int size) { return x.size() == size; };
  if (!sized(p.q_start, n) || !sized(p.v_start, n) || !sized(p.q_goal, n) || !sized(p.v_goal, n) ||
      !sized(p.q_lower, n) || !sized(p.q_upper, n) || !sized(p.u_lower, m) || !sized(p.u_upper, m) ||
      p.q_goal_given.size() != static_cast<std::size_t>(n) || p.v_goal_given.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("the problem's sizes are not the system's");
  if (!(p.horizon > 0.0) || !std::isfinite(p.horizon)) throw std::invalid_argument("horizon must be positive");
  if (p.steps < 1) throw std::invalid_argument("steps must be at least 1");
  if (!(p.effort > 0.0) || !std::isfinite(p.effort)) throw std::invalid_argument("the effort weight must be positive");
  if (!p.q_start.allFinite() || !p.v_start.allFinite() || !p.q_goal.allFinite() || !p.v_goal.allFinite())
    throw std::invalid_argument("start and goal must be finite");
  for (int i = 0; i < n; ++i) {
    if (!(p.q_lower[i] < p.q_upper[i]))
      throw std::invalid_argument("empty bounds on coordinate " + std::to_string(i + 1) + " (lower >= upper)");
    if (p.q_start[i] < p.q_lower[i] || p.q_start[i] > p.q_upper[i])
      throw std::invalid_argument("the start of coordinate " + std::to_string(i + 1) + " is outside its bounds");
    if (p.q_goal_given[static_cast<std::size_t>(i)] && (p.q_goal[i] < p.q_lower[i] || p.q_goal[i] > p.q_upper[i]))
      throw std::invalid_argument("the goal of coordinate " + std::to_string(i + 1) + " is outside its bounds");
  }
  for (int i = 0; i < m; ++i)
    if (!(p.u_lower[i] < p.u_upper[i]))
      throw std::invalid_argument("empty bounds on control " + std::to_string(i + 1) + " (lower >= upper)");
}

}  // namespace

DmocProblem::DmocProblem(int n, int m)
    : q_start(Eigen::VectorXd::Zero(n)),
      v_start(Eigen::VectorXd::Zero(n)),
      q_goal(Eigen::VectorXd::Zero(n)),
      v_goal(Eigen::VectorXd::Zero(n)),
      q_goal_given(static_cast<std::size_t>(n), false),
      v_goal_given(static_cast<std::size_t>(n), false),
      q_lower(Eigen::VectorXd::Constant(n, -kUnbounded)),
      q_upper(Eigen::VectorXd::Constant(n, kUnbounded)),
      u_lower(Eigen::VectorXd::Constant(m, -kUnbounded)),
      u_upper(Eigen::VectorXd::Constant(m, kUnbounded)) {}

DmocLayout::DmocLayout(const DmocProblem& problem, int n, int m, std::vector<double> interior_times)
    : n_(n), m_(m), steps_(problem.steps), interior_times_(std::move(interior_times)) {
  validate(problem, n, m);
  const int N = steps_, K = step_size(), rows = points_size();
  std::map<std::pair<int, int>, int> slots;
  step_jacobian_slots_.resize(static_cast<std::size_t>(N) * rows * K);
  for (int k = 0; k < N; ++k) {
    int* slot = &step_jacobian_slots_[static_cast<std::size_t>(k) * rows * K];
    for (int i = 0; i < rows; ++i) {
      // The rows of A_k (node k), B_k (node k+1), then the step's interior constraints.
      const int row = i < n ? k * n + i : i < 2 * n ? (k + 1) * n + (i - n) : interior_row(k) + (i - 2 * n);
      for (int j = 0; j < K; ++j) slot[i * K + j] = slot_of(slots, jacobian_entries_, row, step_column(k, j));
    }
  }
  end_jacobian_slots_.resize(static_cast<std::size_t>(2 * n * n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2 * n; ++j)
      end_jacobian_slots_[static_cast<std::size_t>(i * 2 * n + j)] = slot_of(slots, jacobian_entries_, N * n + i, end_column(j));

  slots.clear();
  const auto lower = [&](int a, int b) { return slot_of(slots, hessian_entries_, std::max(a, b), std::min(a, b)); };
  step_hessian_slots_.assign(static_cast<std::size_t>(N) * K * K, -1);
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < K; ++i)
      for (int j = 0; j <= i; ++j)
        step_hessian_slots_[static_cast<std::size_t>(k) * K * K + i * K + j] = lower(step_column(k, i), step_column(k, j));
  end_hessian_slots_.assign(static_cast<std::size_t>(4 * n * n), -1);
  for (int i = 0; i < 2 * n; ++i)
    for (int j = 0; j <= i; ++j) end_hessian_slots_[static_cast<std::size_t>(i * 2 * n + j)] = lower(end_column(i), end_column(j));
}

int DmocLayout::step_column(int k, int j) const {
  if (j < n_) return q_index(k) + j;
  if (j < 2 * n_) return q_index(k + 1) + (j - n_);
  if (j < points_size()) return interior_index(k) + (j - 2 * n_);
  return u_index(k) + (j - points_size());
}

int DmocLayout::end_column(int j) const { return j < n_ ? q_index(steps_) + j : v_end_index() + (j - n_); }

void DmocLayout::variable_bounds(const DmocProblem& problem, Eigen::Ref<Eigen::VectorXd> lower,
                                 Eigen::Ref<Eigen::VectorXd> upper) const {
  const int N = steps_;
  for (int k = 0; k <= N; ++k) {
    lower.segment(q_index(k), n_) = problem.q_lower;
    upper.segment(q_index(k), n_) = problem.q_upper;
  }
  lower.segment(q_index(0), n_) = problem.q_start;
  upper.segment(q_index(0), n_) = problem.q_start;
  lower.segment(v_end_index(), n_).setConstant(-kUnbounded);
  upper.segment(v_end_index(), n_).setConstant(kUnbounded);
  for (int i = 0; i < n_; ++i) {
    if (problem.q_goal_given[static_cast<std::size_t>(i)]) lower[q_index(N) + i] = upper[q_index(N) + i] = problem.q_goal[i];
    if (problem.v_goal_given[static_cast<std::size_t>(i)]) lower[v_end_index() + i] = upper[v_end_index() + i] = problem.v_goal[i];
  }
  for (int k = 0; k < N; ++k) {
    lower.segment(u_index(k), m_) = problem.u_lower;
    upper.segment(u_index(k), m_) = problem.u_upper;
  }
  // An interior control point is the motion at its time (the polynomial interpolates its control
  // points): the coordinates' bounds hold there too.
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < interior(); ++i) {
      lower.segment(interior_index(k) + i * n_, n_) = problem.q_lower;
      upper.segment(interior_index(k) + i * n_, n_) = problem.q_upper;
    }
}

Eigen::VectorXd DmocLayout::interpolation_guess(const DmocProblem& problem) const {
  const int N = steps_;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(num_variables());
  Eigen::VectorXd q_end = problem.q_start;
  for (int i = 0; i < n_; ++i)
    if (problem.q_goal_given[static_cast<std::size_t>(i)]) q_end[i] = problem.q_goal[i];
  for (int k = 0; k <= N; ++k) {
    const double s = static_cast<double>(k) / N;
    x.segment(q_index(k), n_) = (1.0 - s) * problem.q_start + s * q_end;
  }
  Eigen::VectorXd v = (q_end - problem.q_start) / problem.horizon;
  for (int i = 0; i < n_; ++i)
    if (problem.v_goal_given[static_cast<std::size_t>(i)]) v[i] = problem.v_goal[i];
  x.segment(v_end_index(), n_) = v;
  // Controls start strictly inside their bounds (0 when 0 is inside).
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < m_; ++i) x[u_index(k) + i] = std::clamp(0.0, problem.u_lower[i], problem.u_upper[i]);
  fill_interior_points(x);
  return x;
}

void DmocLayout::fill_interior_points(Eigen::Ref<Eigen::VectorXd> x) const {
  for (int k = 0; k < steps_; ++k)
    for (int i = 0; i < interior(); ++i) {
      const double tau = interior_times_[static_cast<std::size_t>(i)];
      x.segment(interior_index(k) + i * n_, n_) =
          (1.0 - tau) * x.segment(q_index(k), n_) + tau * x.segment(q_index(k + 1), n_);
    }
}

}  // namespace mechint::optimal
