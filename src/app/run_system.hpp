#pragma once
/// \file
/// `mechint run` as a function: resolves a system's parameters and the chosen method's options
/// from `--set` assignments, refuses what does not apply, and runs it into a RowWriter.

#include <string>

#include "app/system_entry.hpp"

namespace mechint::app {

/// Runs `system` with `method` (empty: the system's default) and the `--set` values `overrides`.
/// Throws InvalidInput for an unknown name, a method the system does not offer, or an option that
/// does not apply to the method (one line naming what does).
void run_system(const SystemEntry& system, const std::string& method, const Overrides& overrides,
                const OutputSchedule& schedule, RowWriter& out);

}  // namespace mechint::app
