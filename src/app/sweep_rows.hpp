#pragma once
/// \file
/// What a sweep keeps of one member's run (DESIGN §9): the rows of `run` stream through
/// MemberRows, which keeps the last row and the running maxima that summary.csv reports, and — when
/// the sweep keeps trajectories — every stride-th row.

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "app/row_writer.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::app {

/// Where the summary's quantities are among the columns of a run (the recorders' order,
/// app/recorder.hpp: t, coordinates, [velocities], [canonical momenta], energy, [htilde], Noether
/// momenta, [their discrete work], [constraint_residual, lambda1..k], [u1..um], then any columns a
/// method option adds, such as megno, lyapunov and fli).
struct RunColumns {
  std::vector<std::string> names;
  /// The state: every column between t and the energy column (the coordinates, and the velocities
  /// or canonical momenta where the run writes them).
  std::size_t state_begin = 1, state_end = 1;
  std::ptrdiff_t energy = -1;  ///< `energy`, or `jacobi` (three-body, C = -2E); -1: none
  std::vector<std::size_t> momenta;  ///< the Noether momenta
  /// constraint_residual (holonomic) and nonholonomic_residual (the discrete velocity constraint).
  std::ptrdiff_t constraint_residual = -1, nonholonomic_residual = -1, megno = -1, lyapunov = -1, fli = -1;
  bool has_constraints() const { return constraint_residual >= 0 || nonholonomic_residual >= 0; }

  /// Finds them in the header of a run.
  static RunColumns of(const std::vector<std::string>& header);
  /// The names of the state columns.
  std::vector<std::string> state_names() const {
    return {names.begin() + static_cast<std::ptrdiff_t>(state_begin), names.begin() + static_cast<std::ptrdiff_t>(state_end)};
  }
};

/// The rows of one member, summarised as they come.
class MemberRows final : public RowWriter {
 public:
  /// `stop` (may be null): when it turns true the run stops between steps (Interrupted).
  explicit MemberRows(const std::atomic<bool>* stop = nullptr) : stop_(stop) {}
  void header(const std::vector<std::string>& columns) override { columns_ = RunColumns::of(columns); }
  void row(const std::vector<double>& values) override;
  void poll(double) override {
    if (stop_ && stop_->load(std::memory_order_relaxed)) throw Interrupted("interrupted");
  }

  /// Keeps every `stride`-th row from the first, and the last: the rows `run --output-every` would
  /// write when a row comes at every step (stride = output_every / h), or every row (stride 1).
  void keep_trajectory(long stride) { stride_ = stride; }
  /// The kept rows, one after another (columns().names.size() values each), the last row included.
  std::vector<double> trajectory() const;

  const RunColumns& columns() const { return columns_; }
  /// Rows seen: with output at every step, the steps taken plus the start.
  long rows() const { return rows_; }
  const std::vector<double>& last_row() const { return last_; }
  /// max |E - E0| over the rows (of the energy column as written: C for the three-body problem).
  double energy_error() const { return energy_error_; }
  /// max over the Noether momenta and the rows of |J - J0|.
  double momentum_error() const { return momentum_error_; }
  /// max of constraint_residual and nonholonomic_residual over the rows.
  double constraint_residual() const { return constraint_residual_; }

 private:
  const std::atomic<bool>* stop_;
  RunColumns columns_;
  long rows_ = 0;
  long stride_ = 0;  ///< 0: no trajectory kept
  bool last_kept_ = false;
  std::vector<double> first_, last_, kept_;
  double energy_error_ = 0.0, momentum_error_ = 0.0, constraint_residual_ = 0.0;
};

}  // namespace mechint::app
