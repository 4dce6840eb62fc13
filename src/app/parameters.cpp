#include "app/parameters.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

ParameterSpec ParameterSpec::real(std::string name, double value, std::string description,
                                  double min_value, double max_value) {
  ParameterSpec s;
  s.name = std::move(name);
  s.kind = Kind::kReal;
  s.default_value = format_exact(value);
  s.description = std::move(description);
  s.min_value = min_value;
  s.max_value = max_value;
  return s;
}

ParameterSpec ParameterSpec::integer(std::string name, int value, std::string description,
                                     int min_value, int max_value) {
  ParameterSpec s;
  s.name = std::move(name);
  s.kind = Kind::kInteger;
  s.default_value = std::to_string(value);
  s.description = std::move(description);
  s.min_value = min_value;
  s.max_value = max_value;
  return s;
}

ParameterSpec ParameterSpec::choice(std::string name, std::vector<std::string> choices,
                                    std::string description) {
  ParameterSpec s;
  s.name = std::move(name);
  s.kind = Kind::kChoice;
  s.default_value = choices.front();
  s.description = std::move(description);
  s.choices = std::move(choices);
  return s;
}

double parse_real(const std::string& what, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  // strtod skips leading blanks: a value must be the number and nothing else.
  const bool whole = !text.empty() && !std::isspace(static_cast<unsigned char>(text.front())) &&
                     end == text.c_str() + text.size();
  if (!whole) throw InvalidInput("value of '" + what + "' is not a number: " + quote_for_message(text));
  // ERANGE on underflow still returns the nearest representable value (a subnormal or zero), which
  // is what was asked for; on overflow it returns ±HUGE_VAL.
  if (!std::isfinite(value) || (errno == ERANGE && std::abs(value) > 1.0))
    throw InvalidInput("value of '" + what + "' must be a finite number, got " + quote_for_message(text));
  return value;
}

namespace {

double parse_number(const ParameterSpec& spec, const std::string& text) {
  const double value = parse_real(spec.name, text);
  if (spec.kind == ParameterSpec::Kind::kInteger && value != std::floor(value))
    throw InvalidInput("value of '" + spec.name + "' must be an integer, got " + quote_for_message(text));
  if (value < spec.min_value || value > spec.max_value)
    throw InvalidInput("value of '" + spec.name + "' must be in [" + format_number(spec.min_value) + ", " +
                       format_number(spec.max_value) + "], got " + quote_for_message(text));
  return value;
}

}  // namespace

ParameterValues ParameterValues::resolve(const std::vector<ParameterSpec>& specs,
                                         const std::map<std::string, std::string>& overrides,
                                         const std::string& system_name) {
  ParameterValues values;
  std::map<std::string, const ParameterSpec*> by_name;
  for (const auto& spec : specs) by_name[spec.name] = &spec;
  for (const auto& [name, text] : overrides) {
    if (!by_name.count(name)) {
      std::string known;
      for (const auto& spec : specs) known += (known.empty() ? "" : ", ") + spec.name;
      throw InvalidInput("unknown name " + quote_for_message(name) + " for system '" + system_name +
                         "' (known: " + known + ")");
    }
  }
  for (const auto& spec : specs) {
    const auto it = overrides.find(spec.name);
    const std::string& text = it != overrides.end() ? it->second : spec.default_value;
    if (it != overrides.end()) values.explicitly_set_[spec.name] = true;
    values.text_[spec.name] = text;
    if (spec.kind == ParameterSpec::Kind::kChoice) {
      bool ok = false;
      std::string list;
      for (const auto& c : spec.choices) {
        ok = ok || c == text;
        list += (list.empty() ? "" : "|") + c;
      }
      if (!ok)
        throw InvalidInput("value of '" + spec.name + "' must be one of " + list + ", got " +
                           quote_for_message(text));
    } else {
      values.numbers_[spec.name] = parse_number(spec, text);
    }
  }
  return values;
}

std::string ParameterValues::describe() const {
  std::string s;
  for (const auto& [name, text] : text_) {
    const auto number = numbers_.find(name);
    s += (s.empty() ? "" : ";") + name + "=" + (number == numbers_.end() ? text : format_number(number->second, 17));
  }
  return s;
}

double ParameterValues::real(const std::string& name) const {
  const auto it = numbers_.find(name);
  if (it == numbers_.end()) throw std::logic_error("no numeric parameter '" + name + "'");
  return it->second;
}

int ParameterValues::integer(const std::string& name) const {
  return static_cast<int>(std::lround(real(name)));
}

const std::string& ParameterValues::choice(const std::string& name) const {
  const auto it = text_.find(name);
  if (it == text_.end()) throw std::logic_error("no parameter '" + name + "'");
  return it->second;
}

void parse_assignment(const std::string& assignment, std::map<std::string, std::string>& into) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InvalidInput("--set expects NAME=VALUE, got " + quote_for_message(assignment));
  const std::string name = assignment.substr(0, eq);
  if (into.count(name)) throw InvalidInput(quote_for_message(name) + " is set twice");
  into[name] = assignment.substr(eq + 1);
}

}  // namespace mechint::app
