#pragma once
/// \file
/// The digest that binds what a sweep leaves in its directory to the sweep (docs/sweeps.md, "What
/// DIR holds"): the journal's first line names the digest of the sweep's definition, every journal
/// row carries the digest of that definition, the member's inputs and its results, and every
/// trajectory file is recorded by its size and digest. 128 bits (two FNV-1a passes, as the model
/// cache's keys): it tells a row of another sweep, an edited row or a damaged file from the sweep's
/// own, against accidents and careless copies; it is not a signature against a forger.

#include <string>
#include <string_view>

namespace mechint::app {

/// 32 lowercase hexadecimal digits.
std::string sweep_digest(std::string_view material);

/// Whether `text` is what sweep_digest returns: 32 lowercase hexadecimal digits.
bool is_sweep_digest(std::string_view text);

}  // namespace mechint::app
