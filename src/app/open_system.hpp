#pragma once
/// \file
/// The one lookup of a system by what a user names (DESIGN §3, `open_system`): a built-in's name
/// (`mechint list`) or a model file (a path ending in `.toml`). The command line, Python, sweeps,
/// optimize and the C++ API (mechint/system.hpp) open systems here and nowhere else.

#include <memory>
#include <string>

#include "app/system_entry.hpp"

namespace mechint::app {

/// The system named `name_or_path`: a built-in's entry (shared, it lives as long as the program) or
/// a model file's, read, checked and compiled (or loaded from the cache) now. Throws InvalidInput
/// for an unknown name or a model file that cannot be used (one located line), IoError where the
/// file cannot be read or its compiled kernels cannot be cached.
std::shared_ptr<const SystemEntry> open_system(const std::string& name_or_path);

}  // namespace mechint::app
