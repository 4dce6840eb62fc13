// The Ipopt adapter of optimal/ipopt_solver.hpp: a TNLP that forwards to a NonlinearProgram.
//
// Evaluation failures (an exception of the model, a non-finite value) are reported to Ipopt as a
// failed evaluation (`return false`), so that its line search backs off instead of accepting NaN;
// nothing is thrown through Ipopt.

#include "mechint/optimal/ipopt_solver.hpp"

#include <IpIpoptApplication.hpp>
#include <IpSolveStatistics.hpp>
#include <IpTNLP.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace mechint::optimal {
namespace {

using Ipopt::Index;
using Ipopt::Number;
using ConstMap = Eigen::Map<const Eigen::VectorXd>;
using Map = Eigen::Map<Eigen::VectorXd>;

bool all_finite(const Number* v, Index n) {
  for (Index i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

/// Runs an evaluation; false if it threw or produced a non-finite value.
template <class F>
bool guarded(F&& evaluate, const Number* out, Index n) {
  try {
    evaluate();
  } catch (const std::exception&) {
    return false;
  }
  return all_finite(out, n);
}

class ProgramAdapter : public Ipopt::TNLP {
 public:
  ProgramAdapter(const NonlinearProgram& program, bool exact_hessian,
                 const std::function<void(const IpoptIteration&)>& on_iteration)
      : program_(program), exact_hessian_(exact_hessian), on_iteration_(on_iteration) {}

  /// What finalize_solution received (x, multipliers, objective).
  const NlpSolution& solution() const { return solution_; }

  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac_g, Index& nnz_h_lag, IndexStyleEnum& index_style) override {
    n = program_.num_variables();
    m = program_.num_constraints();
    nnz_jac_g = static_cast<Index>(program_.jacobian_structure().size());
    nnz_h_lag = exact_hessian_ ? static_cast<Index>(program_.hessian_structure().size()) : 0;
    index_style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) override {
    Eigen::VectorXd lower(n), upper(n);
    program_.variable_bounds(lower, upper);
    // Ipopt reads |bound| >= nlp_*_bound_inf (1e19 by default) as "none".
    for (Index i = 0; i < n; ++i) {
      x_l[i] = std::isinf(lower[i]) ? -2e19 : lower[i];
      x_u[i] = std::isinf(upper[i]) ? 2e19 : upper[i];
    }
    std::fill(g_l, g_l + m, 0.0);
    std::fill(g_u, g_u + m, 0.0);
    return true;
  }

  bool get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number*, Number*, Index, bool init_lambda,
                          Number*) override {
    if (!init_x || init_z || init_lambda) return false;
    program_.initial_point(Map(x, n));
    return true;
  }

  bool eval_f(Index n, const Number* x, bool, Number& obj_value) override {
    return guarded([&] { obj_value = program_.objective(ConstMap(x, n)); }, &obj_value, 1);
  }

  bool eval_grad_f(Index n, const Number* x, bool, Number* grad_f) override {
    return guarded([&] { program_.objective_gradient(ConstMap(x, n), Map(grad_f, n)); }, grad_f, n);
  }

  bool eval_g(Index n, const Number* x, bool, Index m, Number* g) override {
    return guarded([&] { program_.constraints(ConstMap(x, n), Map(g, m)); }, g, m);
  }

  bool eval_jac_g(Index n, const Number* x, bool, Index, Index nele_jac, Index* iRow, Index* jCol,
                  Number* values) override {
    if (values == nullptr) {
      const auto& structure = program_.jacobian_structure();
      for (Index k = 0; k < nele_jac; ++k) {
        iRow[k] = structure[k].row;
        jCol[k] = structure[k].col;
      }
      return true;
    }
    return guarded([&] { program_.constraint_jacobian(ConstMap(x, n), Map(values, nele_jac)); }, values, nele_jac);
  }

  bool eval_h(Index n, const Number* x, bool, Number obj_factor, Index m, const Number* lambda, bool,
              Index nele_hess, Index* iRow, Index* jCol, Number* values) override {
    if (!exact_hessian_) return false;
    if (values == nullptr) {
      const auto& structure = program_.hessian_structure();
      for (Index k = 0; k < nele_hess; ++k) {
        iRow[k] = structure[k].row;
        jCol[k] = structure[k].col;
      }
      return true;
    }
    return guarded(
        [&] { program_.lagrangian_hessian(ConstMap(x, n), obj_factor, ConstMap(lambda, m), Map(values, nele_hess)); },
        values, nele_hess);
  }

  bool intermediate_callback(Ipopt::AlgorithmMode, Index iter, Number obj_value, Number inf_pr, Number, Number,
                             Number, Number, Number, Number, Index, const Ipopt::IpoptData*,
                             Ipopt::IpoptCalculatedQuantities*) override {
    if (on_iteration_) {
      try {
        on_iteration_({.iteration = static_cast<int>(iter), .objective = obj_value, .infeasibility = inf_pr});
      } catch (...) {
        // Nothing is thrown through Ipopt; the solve goes on without its display.
      }
    }
    return true;  // never asks Ipopt to stop
  }

  void finalize_solution(Ipopt::SolverReturn, Index n, const Number* x, const Number*, const Number*, Index m,
                         const Number*, const Number* lambda, Number obj_value, const Ipopt::IpoptData*,
                         Ipopt::IpoptCalculatedQuantities*) override {
    solution_.x = ConstMap(x, n);
    solution_.multipliers = ConstMap(lambda, m);
    solution_.objective = obj_value;
  }

 private:
  const NonlinearProgram& program_;
  bool exact_hessian_;
  const std::function<void(const IpoptIteration&)>& on_iteration_;
  NlpSolution solution_;
};

const char* status_name(Ipopt::ApplicationReturnStatus status) {
  switch (status) {
    case Ipopt::Solve_Succeeded: return "Solve_Succeeded";
    case Ipopt::Solved_To_Acceptable_Level: return "Solved_To_Acceptable_Level";
    case Ipopt::Infeasible_Problem_Detected: return "Infeasible_Problem_Detected";
    case Ipopt::Search_Direction_Becomes_Too_Small: return "Search_Direction_Becomes_Too_Small";
    case Ipopt::Diverging_Iterates: return "Diverging_Iterates";
    case Ipopt::User_Requested_Stop: return "User_Requested_Stop";
    case Ipopt::Feasible_Point_Found: return "Feasible_Point_Found";
    case Ipopt::Maximum_Iterations_Exceeded: return "Maximum_Iterations_Exceeded";
    case Ipopt::Restoration_Failed: return "Restoration_Failed";
    case Ipopt::Error_In_Step_Computation: return "Error_In_Step_Computation";
    case Ipopt::Maximum_CpuTime_Exceeded: return "Maximum_CpuTime_Exceeded";
    case Ipopt::Not_Enough_Degrees_Of_Freedom: return "Not_Enough_Degrees_Of_Freedom";
    case Ipopt::Invalid_Problem_Definition: return "Invalid_Problem_Definition";
    case Ipopt::Invalid_Option: return "Invalid_Option";
    case Ipopt::Invalid_Number_Detected: return "Invalid_Number_Detected";
    case Ipopt::Unrecoverable_Exception: return "Unrecoverable_Exception";
    case Ipopt::NonIpopt_Exception_Thrown: return "NonIpopt_Exception_Thrown";
    case Ipopt::Insufficient_Memory: return "Insufficient_Memory";
    case Ipopt::Internal_Error: return "Internal_Error";
  }
  return "unknown Ipopt status";
}

/// max |g(x)| and the largest bound violation of x.
double violation_at(const NonlinearProgram& program, const Eigen::VectorXd& x) {
  const int n = program.num_variables();
  Eigen::VectorXd g(program.num_constraints()), lower(n), upper(n);
  program.constraints(x, g);
  program.variable_bounds(lower, upper);
  double v = g.size() > 0 ? g.cwiseAbs().maxCoeff() : 0.0;
  for (int i = 0; i < n; ++i) v = std::max({v, lower[i] - x[i], x[i] - upper[i]});
  return std::isfinite(v) ? v : std::numeric_limits<double>::infinity();
}

}  // namespace

NlpSolution solve_with_ipopt(const NonlinearProgram& program, const IpoptSettings& settings) {
  const bool exact = settings.hessian == HessianMode::kExact;
  if (exact && !program.has_exact_hessian())
    throw std::invalid_argument("this program has no exact Hessian: use the limited-memory approximation");

  // Ipopt's objects live in this block only; what they found is copied out of the adapter's own
  // storage while they are alive, and the result is assembled after they are gone.
  NlpSolution found;
  Ipopt::ApplicationReturnStatus status;
  int iterations = 0;
  {
    Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
    auto options = app->Options();
    options->SetIntegerValue("print_level", settings.print_level);
    options->SetStringValue("sb", "yes");  // no banner
    options->SetNumericValue("tol", settings.tolerance);
    options->SetNumericValue("constr_viol_tol", settings.constraint_tolerance);
    options->SetIntegerValue("max_iter", settings.max_iterations);
    options->SetStringValue("hessian_approximation", exact ? "exact" : "limited-memory");
    // An empty options file name: Ipopt must not read an ipopt.opt lying in the working directory.
    if (app->Initialize("") != Ipopt::Solve_Succeeded) throw std::runtime_error("Ipopt could not be initialized");
    auto* adapter = new ProgramAdapter(program, exact, settings.on_iteration);
    Ipopt::SmartPtr<Ipopt::TNLP> owner = adapter;
    status = app->OptimizeTNLP(owner);
    found = adapter->solution();
    if (Ipopt::IsValid(app->Statistics())) iterations = app->Statistics()->IterationCount();
  }

  NlpSolution solution = std::move(found);
  solution.status = status_name(status);
  solution.converged = status == Ipopt::Solve_Succeeded;
  solution.infeasible = status == Ipopt::Infeasible_Problem_Detected;
  solution.iterations = iterations;
  if (solution.x.size() == program.num_variables()) {
    solution.constraint_violation = violation_at(program, solution.x);
  } else {
    solution.x.resize(0);
    solution.constraint_violation = std::numeric_limits<double>::infinity();
  }
  return solution;
}

}  // namespace mechint::optimal
