#pragma once
/// \file
/// Messages about a model file: the one-line `FILE:LINE:COLUMN: what is wrong` error of DESIGN §6,
/// and "did you mean" suggestions for a misspelt name. Shared by the expression parser and the
/// model-file reader so that both report the same way.

#include <string>
#include <string_view>
#include <vector>

#include "mechint/core/format.hpp"

#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// Throws mechint::InvalidInput with the message `FILE:LINE:COLUMN: what`, made one printable line
/// (control characters and non-ASCII bytes escaped, length bounded) whatever `file` and `what` hold.
/// Callers still quote values from the file (quote_for_message) so that the message stays readable.
[[noreturn]] void fail_at(const std::string& file, SourcePosition where, std::string_view what);

/// The candidate closest to `name` by edit distance, when it is close enough to be a likely typo
/// (at most a third of the longer name's characters differ); "" when none is.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" for the closest candidate, or "" when none is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

/// The names separated by ", " (for "known: ..." lists): core/format.hpp's.
using mechint::join_names;

}  // namespace mechint::model_file
