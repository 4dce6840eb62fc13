#pragma once
/// \file
/// The controls u of a run on the command line (docs/forces.md, "Controls on the command line"):
/// piecewise constant in time, given either as constants (`--set u1=0.5`) or as a schedule read from
/// a CSV file (`--controls FILE.csv`, header `t,<control names>`, rows of increasing t). The value of
/// a row holds from its t until the next row's t; before the first row, the first row's values.
///
/// The variational integrators sample the schedule at each step's midpoint t_k + h/2 (a control law,
/// kernel/kernel_variational_integrator.hpp), the Runge–Kutta baselines at their stage times.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "mechint/core/linear_algebra.hpp"

namespace mechint::app {

/// Controls over time given in memory (Python's dict): the times, and for each control its values
/// at those times.
struct ControlTable {
  std::vector<double> t;
  std::vector<std::pair<std::string, std::vector<double>>> columns;
};

class ControlSchedule {
 public:
  /// No rows: every control is 0 (a model with controls that nobody set).
  ControlSchedule() = default;

  /// `values` held over the whole run.
  static ControlSchedule constant(std::vector<double> values);

  /// Reads a schedule whose header names the controls `names` (in any order, each once). Throws
  /// InvalidInput with one line `FILE:LINE: what is wrong` for a file that cannot be read, is
  /// empty, has a header that is not `t` and exactly these names, or a row that has the wrong count
  /// of values, a value that is not a finite number, or a t not after the previous row's.
  static ControlSchedule read(const std::string& path, const std::vector<std::string>& names);

  /// The same schedule from a table in memory, checked as `read` checks a file (exactly the names,
  /// each once; as many values as times, all finite; increasing t; at least one row): InvalidInput
  /// with one line `controls: what is wrong` otherwise.
  static ControlSchedule from_table(const ControlTable& table, const std::vector<std::string>& names);

  /// The values in force at t: those of the last row whose t_i <= t (the first row before it).
  template <int m>
  VecD<m> at(double t) const {
    const auto after = std::upper_bound(times_.begin(), times_.end(), t);
    return row<m>(after - times_.begin() - 1);
  }

  /// The values in force just before t: those of the last row whose t_i < t (the first row at or
  /// before it). What held over a step that ended at t.
  template <int m>
  VecD<m> before(double t) const {
    const auto at_or_after = std::lower_bound(times_.begin(), times_.end(), t);
    return row<m>(at_or_after - times_.begin() - 1);
  }

  /// `at` and `before` into u of the model's runtime count of controls (its size), for the
  /// runtime-sized methods: nothing allocated.
  void at(double t, Eigen::VectorXd& u) const {
    row_into(std::upper_bound(times_.begin(), times_.end(), t) - times_.begin() - 1, u);
  }
  void before(double t, Eigen::VectorXd& u) const {
    row_into(std::lower_bound(times_.begin(), times_.end(), t) - times_.begin() - 1, u);
  }

  /// Whether the values are the same at every time: one row, or none (every control 0).
  bool constant_in_time() const { return times_.size() <= 1; }

  /// Number of controls of each row (0 when there are no rows).
  int width() const { return width_; }
  /// The rows in full precision, for a checkpoint to record what its run was given.
  std::string describe() const;

 private:
  template <int m>
  VecD<m> row(std::ptrdiff_t i) const {
    VecD<m> u = VecD<m>::Zero();
    if (times_.empty()) return u;
    const std::size_t r = static_cast<std::size_t>(std::max<std::ptrdiff_t>(i, 0));
    for (int j = 0; j < m && j < width_; ++j) u[j] = values_[r * width_ + j];
    return u;
  }

  void row_into(std::ptrdiff_t i, Eigen::VectorXd& u) const {
    u.setZero();
    if (times_.empty()) return;
    const std::size_t r = static_cast<std::size_t>(std::max<std::ptrdiff_t>(i, 0));
    for (int j = 0; j < u.size() && j < width_; ++j) u[j] = values_[r * width_ + j];
  }

  std::vector<double> times_;   ///< strictly increasing
  std::vector<double> values_;  ///< row-major, width_ per row
  int width_ = 0;
};

/// Where a run's controls over time come from: a CSV file (`--controls`), a table in memory, or
/// neither (each control's constant `--set` value). A path converts to it.
struct ControlsSource {
  ControlsSource() = default;
  ControlsSource(std::string path) : file(std::move(path)) {}  // NOLINT: a path is a source
  ControlsSource(const char* path) : file(path) {}            // NOLINT
  ControlsSource(ControlTable t) : table(std::move(t)), has_table(true) {}  // NOLINT
  bool given() const { return !file.empty() || has_table; }

  std::string file;
  ControlTable table;
  bool has_table = false;
};

/// The names of m controls in the output columns and of the built-in systems: u1, …, um.
std::vector<std::string> numbered_controls(int m);

}  // namespace mechint::app
