#pragma once
/// \file
/// Typed values of the TOML files mechint reads beside model files (optimal control problems,
/// app/optimal_control_file.cpp; sweeps, app/sweep_file.cpp). A reader derives from
/// TomlValues<Reader> and defines `[[noreturn]] void fail(const toml::node&, const std::string&)
/// const`, which refuses a value where it stands in the file (FILE:LINE:COLUMN, exit 2).

#include <toml++/toml.h>

#include <cmath>
#include <string>

#include "mechint/core/format.hpp"

namespace mechint::app {

template <class Reader>
class TomlValues {
 protected:
  std::string string_value(const toml::node& node, const std::string& what) const {
    const auto* s = node.as_string();
    if (!s) reader().fail(node, what + " must be a string");
    return s->get();
  }

  const toml::table& table_value(const toml::node& node, const std::string& what) const {
    const auto* t = node.as_table();
    if (!t) reader().fail(node, what + " must be a table");
    return *t;
  }

  /// An integer or a floating-point number, finite.
  double number_value(const toml::node& node, const std::string& what) const {
    if (const auto* i = node.as_integer()) return static_cast<double>(i->get());
    const auto* f = node.as_floating_point();
    if (!f) reader().fail(node, what + " must be a number");
    if (!std::isfinite(f->get())) reader().fail(node, what + " must be a finite number, not " + format_number(f->get()));
    return f->get();
  }

  double positive_number(const toml::node& node, const std::string& what) const {
    const double x = number_value(node, what);
    if (!(x > 0.0)) reader().fail(node, what + " must be positive, not " + format_number(x));
    return x;
  }

  bool bool_value(const toml::node& node, const std::string& what) const {
    const auto* b = node.as_boolean();
    if (!b) reader().fail(node, what + " must be true or false");
    return b->get();
  }

 private:
  const Reader& reader() const { return static_cast<const Reader&>(*this); }
};

}  // namespace mechint::app
