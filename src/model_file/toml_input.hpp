#pragma once
/// \file
/// The one way mechint parses TOML (model, problem and sweep files, and the text Python makes of
/// a dict): the text's size and shape bounded first, by a lexical scan of its own, then toml++.
///
/// toml++ makes one nested table for each part of a dotted key or table header, without a bound,
/// and nested tables are destroyed (and read) recursively: `[a.a.a. … .b]` or `a.a. … .b = 1` with
/// 50 000 parts, a 100 KB file, exhausted the stack (SIGSEGV, no message). The scan follows the
/// TOML grammar far enough to know how deep every key and value sits — the parts of the current
/// table header, of its own dotted key, and the arrays and inline tables around it — skipping
/// strings and comments, and refuses a text deeper than kMaxTomlDepth or with more than
/// kMaxTomlKeys keys with one line `FILE:LINE:COLUMN: what`, before toml++ builds anything. On
/// valid TOML it counts exactly what toml++ builds. Where the text stops being TOML the scan goes
/// on leniently (it resumes at the next line, counting brackets and key parts as it finds them)
/// and toml++ then reports the syntax error, unless the scan refused first.
///
/// Header-only, as input_file.hpp; the error message is model_file::fail_at's (diagnostics.cpp),
/// which every TOML reader links.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "model_file/diagnostics.hpp"
#include "model_file/input_file.hpp"

namespace mechint::model_file {

/// Deepest nesting of a TOML input: each part of a table header or a dotted key, each array and
/// each inline table is one level (`[a.b] c.d = [1]` puts 1 at depth 5). mechint's own files need
/// at most 4.
inline constexpr int kMaxTomlDepth = 64;
/// Most keys of a TOML input, each part of a dotted key or a table header counted.
inline constexpr std::size_t kMaxTomlKeys = std::size_t{1} << 16;

namespace toml_scan {

/// The scan of one text (see the file's comment); run() throws InvalidInput at the first limit passed.
class ShapeScan {
 public:
  ShapeScan(std::string_view text, const std::string& label) : s_(text), label_(label) {}

  void run() {
    while (skip_blank_lines()) {
      if (s_[i_] == '[') {
        table_header();
      } else {
        const int parts = key(header_depth_);
        skip_spaces();
        if (parts > 0 && at('=')) {
          ++i_;
          value(header_depth_ + parts);
        }
      }
      skip_rest_of_line();
    }
  }

 private:
  /// An array or inline table not yet closed: its closing bracket and the depth of the container.
  struct Open {
    char closer;
    int depth;
  };

  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  static bool bare_key_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  }
  static bool ends_bare_value(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '[' || c == ']' || c == '{' ||
           c == '}' || c == '#' || c == '"' || c == '\'' || c == '=';
  }

  void newline() {  // at a '\n'
    ++i_;
    ++line_;
    line_start_ = i_;
  }
  void skip_spaces() {
    while (at(' ') || at('\t')) ++i_;
  }
  void skip_comment() {  // at a '#': up to the end of the line
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
  }
  /// Past blank lines and comments; false at the end of the text.
  bool skip_blank_lines() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        newline();
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '#') {
        skip_comment();
      } else {
        return true;
      }
    }
    return false;
  }
  /// Past the end of the current line: what follows a header or a value is a comment, or an error
  /// that toml++ reports.
  void skip_rest_of_line() {
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    if (i_ < s_.size()) newline();
  }

  /// A string of either quote, single-line or multi-line (its newlines counted).
  void string() {
    const char quote = s_[i_];
    const std::string_view triple = quote == '"' ? std::string_view("\"\"\"") : std::string_view("'''");
    if (s_.substr(i_, 3) != triple) {
      single_line_string();
      return;
    }
    i_ += 3;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\\' && quote == '"') {
        ++i_;
        if (i_ < s_.size()) s_[i_] == '\n' ? newline() : void(++i_);
      } else if (c == '\n') {
        newline();
      } else if (s_.substr(i_, 3) == triple) {
        i_ += 3;
        for (int extra = 0; extra < 2 && at(quote); ++extra) ++i_;  // """a"""" ends with a quote
        return;
      } else {
        ++i_;
      }
    }
  }
  /// A string on one line (a quoted key, a value); an unterminated one ends at the line's end.
  void single_line_string() {
    const char quote = s_[i_++];
    while (i_ < s_.size() && s_[i_] != '\n') {
      const char c = s_[i_++];
      if (c == quote) return;
      if (c == '\\' && quote == '"' && i_ < s_.size() && s_[i_] != '\n') ++i_;
    }
  }

  /// A key, simple or dotted, whose first part sits at depth `base` + 1; returns its parts (0: no
  /// key here).
  int key(int base) {
    int parts = 0;
    for (;;) {
      skip_spaces();
      const std::size_t start = i_;
      if (at('"') || at('\'')) {
        single_line_string();
      } else {
        while (i_ < s_.size() && bare_key_char(s_[i_])) ++i_;
      }
      if (i_ == start) return parts;
      ++parts;
      if (++keys_ > kMaxTomlKeys)
        fail(start, "more than " + std::to_string(kMaxTomlKeys) +
                        " keys (each part of a dotted key or table header counted): larger than any file mechint reads");
      check_depth(base + parts, start);
      skip_spaces();
      if (!at('.')) return parts;
      ++i_;
    }
  }

  /// `[a.b]` (a table at depth 2) or `[[a.b]]` (an array at depth 2 whose tables are at depth 3).
  void table_header() {
    const std::size_t start = i_++;
    const bool array = at('[');
    if (array) ++i_;
    const int parts = key(0);
    header_depth_ = parts + (array ? 1 : 0);
    check_depth(header_depth_, start);
  }

  /// A value whose node sits at `depth`, with the arrays and inline tables it opens, to its end.
  void value(int depth) {
    enum class Next { kValue, kKey, kAfterValue };
    std::vector<Open> open;
    Next next = Next::kValue;
    int value_depth = depth;
    while (i_ < s_.size() && !(open.empty() && next == Next::kAfterValue)) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '\n') {
        if (open.empty()) return;  // a value missing: toml++ says so
        newline();
      } else if (c == '#') {
        skip_comment();
      } else if (c == ']' || c == '}') {  // closes an array or inline table (empty, or after a value)
        ++i_;
        if (!open.empty()) open.pop_back();
        next = Next::kAfterValue;
      } else if (c == ',' && !open.empty()) {
        ++i_;
        next = open.back().closer == '}' ? Next::kKey : Next::kValue;
        value_depth = open.back().depth + 1;
      } else if (next == Next::kKey) {
        const int parts = key(open.back().depth);
        if (parts == 0) {  // not a key: read on as a value
          next = Next::kValue;
          value_depth = open.back().depth + 1;
          continue;
        }
        skip_spaces();
        if (at('=')) ++i_;
        next = Next::kValue;
        value_depth = open.back().depth + parts;
      } else {
        // A value, or what follows one without a comma (a date's time; else an error): the same.
        if (next == Next::kAfterValue) value_depth = open.back().depth + 1;
        check_depth(value_depth, i_);
        if (c == '[' || c == '{') {
          ++i_;
          open.push_back({c == '[' ? ']' : '}', value_depth});
          next = c == '[' ? Next::kValue : Next::kKey;
          value_depth = value_depth + 1;
        } else if (c == '"' || c == '\'') {
          string();
          next = Next::kAfterValue;
        } else {
          const std::size_t start = i_;
          while (i_ < s_.size() && !ends_bare_value(s_[i_])) ++i_;
          if (i_ == start) ++i_;  // a stray '=' or ','
          next = Next::kAfterValue;
        }
      }
    }
  }

  void check_depth(int depth, std::size_t where) const {
    if (depth > kMaxTomlDepth)
      fail(where, "nested deeper than " + std::to_string(kMaxTomlDepth) +
                      " levels (each part of a table header or dotted key, each array and inline table is one; "
                      "mechint's files need a few)");
  }

  [[noreturn]] void fail(std::size_t where, const std::string& what) const {
    const auto clamp = [](std::size_t x) { return static_cast<int>(std::min<std::size_t>(x, INT_MAX)); };
    fail_at(label_, {clamp(line_), clamp(where - line_start_ + 1)}, what);
  }

  std::string_view s_;
  const std::string& label_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
  int header_depth_ = 0;
  std::size_t keys_ = 0;
};

}  // namespace toml_scan

/// Refuses, as `FILE:1:1: ...` or `FILE:LINE:COLUMN: ...` (InvalidInput, exit 2), a TOML text
/// larger than kMaxTextFileSize, nested deeper than kMaxTomlDepth or with more than kMaxTomlKeys
/// keys; `label` names it.
inline void check_toml_limits(std::string_view text, const std::string& label) {
  if (text.size() > kMaxTextFileSize)
    fail_at(label, {1, 1},
            "TOML text of " + std::to_string(text.size()) + " bytes is larger than the limit of " +
                std::to_string(kMaxTextFileSize) + " bytes");
  toml_scan::ShapeScan(text, label).run();
}

/// The table of a TOML text within the limits of check_toml_limits; a syntax error is
/// `FILE:LINE:COLUMN: TOML syntax error: ...`.
inline toml::table parse_toml(std::string_view text, const std::string& label) {
  check_toml_limits(text, label);
  try {
    return toml::parse(text, std::string_view(label));
  } catch (const toml::parse_error& error) {
    const auto clamp = [](std::uint32_t x) { return std::max(static_cast<int>(std::min<std::uint32_t>(x, INT_MAX)), 1); };
    fail_at(label, {clamp(error.source().begin.line), clamp(error.source().begin.column)},
            "TOML syntax error: " + std::string(error.description()));
  }
}

}  // namespace mechint::model_file
