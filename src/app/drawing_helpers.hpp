#pragma once
/// \file
/// What the built-in systems' drawings (DESIGN §11, app/drawing.hpp) are made of: each system's
/// own file (src/systems/NAME.cpp) writes its drawing as a DrawingText with these pieces and sets
/// its entry's `drawing` with drawing_from_text. No table of systems: a system's look is known to
/// its own file only.

#include <functional>
#include <string>
#include <vector>

#include "app/drawing.hpp"
#include "app/parameters.hpp"

namespace mechint::app {

/// A parameter value as text that reads back exactly, in parentheses, to write into an expression.
std::string drawing_number(double x);

/// A planar chain hinged at the origin ("pivot"), angles from the downward vertical, each measured
/// from the previous link, link i of length lengths[i] ending at the moving point m<i+1> (the
/// double pendulum, the acrobot, the pendulum chain, the damped pendulum): placed link by link
/// (DrawingText::Chain), so that a chain of any length draws in time linear in its links.
DrawingText planar_chain_drawing(const std::vector<std::string>& angles, const std::vector<double>& lengths);

/// A body at (x, y) about a fixed centre at the origin (Kepler, the low-thrust spacecraft).
DrawingText orbit_drawing();

/// A mass at q on a line, tied to an anchor at the origin (the oscillators).
DrawingText oscillator_drawing();

/// A built-in system's SystemEntry::drawing: `describe` gives its drawing as text for the run's
/// values, parsed by Drawing::from_text and named "the drawing of SYSTEM" in its messages.
std::function<Drawing(const ParameterValues& values)> drawing_from_text(
    std::string system, std::function<DrawingText(const ParameterValues& values)> describe);

}  // namespace mechint::app
