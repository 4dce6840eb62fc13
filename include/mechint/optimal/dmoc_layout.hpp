#pragma once
/// \file
/// What the DMOC transcription (src/kernel/kernel_dmoc.hpp, on a model's derivative kernels) reads: the problem's data over runtime
/// sizes and its checks, the layout of the unknowns x = (q_0 … q_N, v_N, u_0 … u_{N−1}), their bounds
/// and the interpolation guess, and the sparsity of the constraints' Jacobian and of the Hessian of
/// the Lagrangian with the slot of every entry of each step's block. Compiled once
/// (src/optimal/dmoc_layout.cpp, the target mechint::optimal).
///
/// A transcription by a Galerkin discrete Lagrangian (kernel/kernel_dmoc.hpp) has, on each step,
/// `interior` control points of its polynomial between q_k and q_{k+1}: unknowns Q_{k,1} …
/// Q_{k,interior} appended after the controls, and as many equality constraints (Ld stationary in
/// them) appended after the nodes' (Marsden & West 2001 §2.6.6). The rules of second order have none.

#include <Eigen/Core>

#include <vector>

#include "mechint/optimal/nonlinear_program.hpp"

namespace mechint::optimal {

/// An optimal control problem of a system with n coordinates and m controls (DESIGN §7), over runtime
/// sizes; optimal::OptimalControlProblem<n, m> is its fixed-size form.
struct DmocProblem {
  /// A problem of that size: starts and goals 0, no goal imposed, no bounds, effort 1.
  DmocProblem(int n, int m);

  double horizon = 1.0;  ///< T
  int steps = 100;       ///< N, so h = T/N
  Eigen::VectorXd q_start, v_start;
  /// Goal at t = T: the components whose `*_given` flag is set are imposed, the others free.
  Eigen::VectorXd q_goal, v_goal;
  std::vector<bool> q_goal_given, v_goal_given;
  /// Bounds on every q_k and on every u_k (±infinity: none).
  Eigen::VectorXd q_lower, q_upper, u_lower, u_upper;
  double effort = 1.0;  ///< w in J = Σ h·w·|u_k|²

  double step() const { return horizon / steps; }
};

class DmocLayout {
 public:
  /// Checks `problem` against the system's n and m and builds the sparsity. Throws
  /// std::invalid_argument for a problem that cannot be transcribed (sizes not the system's, N < 1,
  /// T ≤ 0, a non-positive effort, a non-finite start or goal, empty bounds, a start or goal outside
  /// them); the message names what is wrong.
  ///
  /// `interior_times`: the times τ ∈ (0, 1) of a step's interior control points (as fractions of the
  /// step; none for the rules of second order), for their bounds and their interpolation guess.
  DmocLayout(const DmocProblem& problem, int n, int m, std::vector<double> interior_times = {});

  int n() const { return n_; }
  int m() const { return m_; }
  /// Interior control points of a step.
  int interior() const { return static_cast<int>(interior_times_.size()); }
  /// Unknowns of one step: q_k, q_{k+1}, its interior points, u_k.
  int step_size() const { return points_size() + m_; }
  /// The configurations of one step's polynomial: q_k, q_{k+1} and the interior points.
  int points_size() const { return (2 + interior()) * n_; }

  int q_index(int k) const { return k * n_; }
  int v_end_index() const { return (steps_ + 1) * n_; }
  int u_index(int k) const { return (steps_ + 2) * n_ + k * m_; }
  /// The first of step k's interior points (each n long, one after the other).
  int interior_index(int k) const { return (steps_ + 2) * n_ + steps_ * m_ + k * interior() * n_; }
  int num_variables() const { return (steps_ + 2) * n_ + steps_ * m_ + steps_ * interior() * n_; }
  int num_constraints() const { return (steps_ + 1) * n_ + steps_ * interior() * n_; }
  /// The first of step k's interior constraints (Ld stationary in its interior points).
  int interior_row(int k) const { return (steps_ + 1) * n_ + k * interior() * n_; }

  /// q_0 fixed to the start, the goal's given components fixed, the problem's bounds elsewhere.
  void variable_bounds(const DmocProblem& problem, Eigen::Ref<Eigen::VectorXd> lower,
                       Eigen::Ref<Eigen::VectorXd> upper) const;
  /// q_k linear from the start to the goal (free goal components: the start), the end velocity of
  /// that line (or the goal's), controls 0 clamped into their bounds.
  Eigen::VectorXd interpolation_guess(const DmocProblem& problem) const;
  /// Each step's interior points on the straight line from q_k to q_{k+1} of x (a guess).
  void fill_interior_points(Eigen::Ref<Eigen::VectorXd> x) const;

  const std::vector<SparseEntry>& jacobian_structure() const { return jacobian_entries_; }
  const std::vector<SparseEntry>& hessian_structure() const { return hessian_entries_; }
  /// Slots of ∂A_k/∂s (n × K, row-major), followed by those of ∂B_k/∂s and of the interior
  /// constraints', s = (q_k, q_{k+1}, interior points, u_k).
  const int* step_jacobian_slots(int k) const {
    return &step_jacobian_slots_[static_cast<std::size_t>(k) * points_size() * step_size()];
  }
  /// Slots of ∂c_N/∂(q_N, v_N) (n × 2n).
  const int* end_jacobian_slots() const { return end_jacobian_slots_.data(); }
  /// Slots of the lower triangle (j ≤ i) of the step's K × K Hessian block (row-major).
  const int* step_hessian_slots(int k) const { return &step_hessian_slots_[static_cast<std::size_t>(k) * step_size() * step_size()]; }
  /// Slots of the lower triangle of the end block over (q_N, v_N) (2n × 2n).
  const int* end_hessian_slots() const { return end_hessian_slots_.data(); }

  /// Adds step k's blocks ∂A_k/∂s and ∂B_k/∂s (n × K each) into the Jacobian's values.
  template <class BlockA, class BlockB>
  void add_step_jacobian(int k, const BlockA& da, const BlockB& db, Eigen::Ref<Eigen::VectorXd> values) const {
    const int K = step_size();
    const int* slot_a = step_jacobian_slots(k);
    const int* slot_b = slot_a + n_ * K;
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < K; ++j) {
        values[slot_a[i * K + j]] += da(i, j);
        values[slot_b[i * K + j]] += db(i, j);
      }
  }
  /// Adds step k's rows — A_k, B_k, then the interior constraints ((2 + interior) n × K) — into the
  /// Jacobian's values.
  template <class Rows>
  void add_step_jacobian(int k, const Rows& rows, Eigen::Ref<Eigen::VectorXd> values) const {
    const int K = step_size();
    const int* slot = step_jacobian_slots(k);
    for (int i = 0; i < points_size(); ++i)
      for (int j = 0; j < K; ++j) values[slot[i * K + j]] += rows(i, j);
  }
  /// Adds the lower triangle of step k's K × K Hessian block into the Hessian's values.
  template <class Block>
  void add_step_hessian(int k, const Block& hk, Eigen::Ref<Eigen::VectorXd> values) const {
    const int K = step_size();
    const int* slot = step_hessian_slots(k);
    for (int i = 0; i < K; ++i)
      for (int j = 0; j <= i; ++j) values[slot[i * K + j]] += hk(i, j);
  }
  /// Subtracts the lower triangle of the end block over (q_N, v_N) from the Hessian's values.
  template <class Block>
  void subtract_end_hessian(const Block& he, Eigen::Ref<Eigen::VectorXd> values) const {
    const int* slot = end_hessian_slots();
    for (int i = 0; i < 2 * n_; ++i)
      for (int j = 0; j <= i; ++j) values[slot[i * 2 * n_ + j]] -= he(i, j);
  }

 private:
  int step_column(int k, int j) const;
  int end_column(int j) const;

  int n_, m_, steps_;
  std::vector<double> interior_times_;
  std::vector<SparseEntry> jacobian_entries_, hessian_entries_;
  std::vector<int> step_jacobian_slots_, end_jacobian_slots_, step_hessian_slots_, end_hessian_slots_;
};

}  // namespace mechint::optimal
