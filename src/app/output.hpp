#pragma once
/// \file
/// Output files that appear whole or not at all.

#include <functional>
#include <string>
#include <vector>

#include "app/simulation.hpp"

namespace mechint::app {

/// Writes a CSV with `header`, rows produced by `produce(sink)`. With a path, the rows go to
/// "<path>.partial" which is renamed to `path` only when `produce` returns; if it throws, the
/// partial file is removed and the exception propagates. An empty path writes to standard output.
void write_csv_atomically(const std::string& path, const std::vector<std::string>& header,
                          const std::function<void(const RowSink&)>& produce);

/// Writes `text` to `path` through a temporary file and a rename.
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace mechint::app
