#include "kernel/chaos_indicators.hpp"

#include <algorithm>
#include <random>

namespace mechint::kernel {

void ChaosIndicators::restart(double t0) {
  t0_ = t0;
  tau_ = ell_ = weighted_ = y_ = y_integral_ = fli_ = 0.0;
}

void ChaosIndicators::add_step(double t, double log_growth) {
  const double tau = t - t0_;
  ell_ += log_growth;
  fli_ = std::max(fli_, ell_);
  weighted_ += log_growth * 0.5 * (tau_ + tau);
  const double y = tau > 0.0 ? 2.0 * weighted_ / tau : 0.0;
  y_integral_ += 0.5 * (y_ + y) * (tau - tau_);
  y_ = y;
  tau_ = tau;
}

double ChaosIndicators::megno() const { return tau_ > 0.0 ? y_integral_ / tau_ : 0.0; }

double ChaosIndicators::lyapunov() const { return tau_ > 0.0 ? ell_ / tau_ : 0.0; }

Vector initial_deviation(int size) {
  std::mt19937_64 bits(20001);  // Cincotta & Simó 2000
  Vector delta(size);
  for (int i = 0; i < size; ++i) delta[i] = static_cast<double>(bits() >> 11) * 0x1p-52 - 1.0;
  return delta / delta.norm();
}

}  // namespace mechint::kernel
