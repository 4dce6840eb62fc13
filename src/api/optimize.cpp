// mechint::optimize (mechint/system.hpp): a problem file solved as `mechint optimize` solves it
// (app/optimize.hpp), its outcome as tables of the files the command writes.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "api/api_errors.hpp"
#include "app/optimal_control_file.hpp"
#include "app/optimize.hpp"
#include "mechint/system.hpp"

namespace mechint {
namespace {

/// Columns `first` (one value per row) then one per name of `names` (row i of `rows` their values).
Table table_of(const std::string& first_name, const std::vector<double>& first, const std::vector<std::string>& names,
               const std::vector<std::vector<double>>& rows, std::size_t count) {
  std::vector<std::string> columns{first_name};
  columns.insert(columns.end(), names.begin(), names.end());
  std::vector<std::vector<double>> values(columns.size());
  for (std::size_t i = 0; i < count; ++i) {
    values[0].push_back(first[i]);
    for (std::size_t j = 0; j < names.size(); ++j) values[j + 1].push_back(rows[i][j]);
  }
  return Table(std::move(columns), std::move(values));
}

}  // namespace

OptimalControlResult optimize(const std::string& problem_file, const std::string& out_dir) {
  return api::with_mechint_errors([&] {
    const app::OptimalControlSpec spec = app::read_optimal_control_file(problem_file);
    const app::OptimizeOutcome outcome = app::optimize_into(spec, out_dir, std::cerr);
    OptimalControlResult result;
    result.status = outcome.solution.status;
    result.cost = outcome.solution.objective;
    result.iterations = outcome.solution.iterations;
    result.method = outcome.method;
    // trajectory.csv's columns (app/optimize.cpp): t, the coordinates, u1 … um (u_k over
    // [t_k, t_{k+1}), the last node repeating the last step's), energy.
    std::vector<std::string> node_columns = outcome.coordinates;
    for (std::size_t i = 0; i < outcome.controls.size(); ++i) node_columns.push_back("u" + std::to_string(i + 1));
    node_columns.push_back("energy");
    std::vector<std::vector<double>> node_rows(outcome.t.size());
    for (std::size_t k = 0; k < outcome.t.size(); ++k) {
      node_rows[k] = outcome.q[k];
      const auto& u = outcome.u[std::min(k, outcome.u.size() - 1)];
      node_rows[k].insert(node_rows[k].end(), u.begin(), u.end());
      node_rows[k].push_back(outcome.energy[k]);
    }
    result.trajectory = table_of("t", outcome.t, node_columns, node_rows, outcome.t.size());
    result.controls = table_of("t", outcome.t, outcome.controls, outcome.u, outcome.u.size());
    result.results_json = app::optimize_results_json(spec, outcome);
    return result;
  });
}

}  // namespace mechint
