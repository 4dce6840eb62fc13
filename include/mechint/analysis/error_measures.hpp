#pragma once
/// \file
/// Error measures and the order-of-convergence estimator.

#include <cmath>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>

namespace mechint {

/// 000 eq. 5.10: (1/(N·m)) Σ_i ‖v_i − v_i^s‖₂ over N common samples of vectors of length m.
inline double sampled_error(const std::vector<Eigen::VectorXd>& values,
                            const std::vector<Eigen::VectorXd>& standard) {
  if (values.size() != standard.size() || values.empty())
    throw std::invalid_argument("sampled_error needs the same, non-zero number of samples");
  const double m = static_cast<double>(values.front().size());
  double sum = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) sum += (values[i] - standard[i]).norm();
  return sum / (static_cast<double>(values.size()) * m);
}

/// Least-squares slope of log(error) against log(h): the observed order of convergence.
inline double convergence_order(const std::vector<double>& step_sizes,
                                const std::vector<double>& errors) {
  if (step_sizes.size() != errors.size() || step_sizes.size() < 2)
    throw std::invalid_argument("convergence_order needs at least two (h, error) pairs");
  double mx = 0, my = 0;
  const double n = static_cast<double>(step_sizes.size());
  for (std::size_t i = 0; i < step_sizes.size(); ++i) {
    if (!(step_sizes[i] > 0) || !(errors[i] > 0))
      throw std::invalid_argument("convergence_order needs positive step sizes and errors");
    mx += std::log(step_sizes[i]) / n;
    my += std::log(errors[i]) / n;
  }
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < step_sizes.size(); ++i) {
    const double dx = std::log(step_sizes[i]) - mx;
    sxy += dx * (std::log(errors[i]) - my);
    sxx += dx * dx;
  }
  return sxy / sxx;
}

}  // namespace mechint
