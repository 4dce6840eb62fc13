#pragma once
/// \file
/// The common case of a model's step guard (a step is a segment in the plane that must keep its
/// distance from a singular point), decided without a square root or a division. A step's own
/// force evaluation needs the divider for its 1/|q|³; a guard that also took a square root and a
/// division each step competed with it (docs/performance-history.md, "vi-trapezoid against a hand-written
/// leapfrog"). The guards keep their exact test, with its message, for the steps this does not clear.

#include <algorithm>

#include "mechint/core/linear_algebra.hpp"

namespace mechint {

/// Whether the segment [a, b] passes the point c farther than max(clearance, fraction·|b − a|),
/// compared in squares: the closest point's squared distance is |a − c|² or |b − c|² where it is an
/// end, else the perpendicular one, cross(a − c, b − a)²/|b − a|², whose division moves to the other
/// side. false where it is not, and for NaN or overflow: the caller's exact test then decides, so
/// the two can differ only by round-off at the threshold.
inline bool segment_clearly_passes(const VecD<2>& a, const VecD<2>& b, const VecD<2>& c, double clearance,
                                   double fraction) {
  const VecD<2> ab = b - a, ac = a - c;
  const double len2 = ab.squaredNorm();
  const double bound2 = std::max(clearance * clearance, fraction * fraction * len2);
  const double along = -ac.dot(ab);  // len2 times the closest point's parameter on the segment
  if (along <= 0.0) return ac.squaredNorm() > bound2;
  if (along >= len2) return (b - c).squaredNorm() > bound2;
  const double cross = ac[0] * ab[1] - ac[1] * ab[0];
  return cross * cross > bound2 * len2;
}

}  // namespace mechint
