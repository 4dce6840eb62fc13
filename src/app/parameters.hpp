#pragma once
/// \file
/// Named parameters and initial values of a system, settable from the command line with
/// `--set NAME=VALUE`.

#include <map>
#include <string>
#include <vector>

namespace mechint::app {

/// One settable name: a real number, an integer, or one of a list of choices.
struct ParameterSpec {
  enum class Kind { kReal, kInteger, kChoice };
  std::string name;
  Kind kind = Kind::kReal;
  std::string default_value;  ///< as text, e.g. "9.81", "2", "cartesian"
  std::string description;
  std::vector<std::string> choices;  ///< for kChoice
  double min_value = -1e300;         ///< inclusive bounds for kReal and kInteger
  double max_value = 1e300;

  static ParameterSpec real(std::string name, double value, std::string description,
                            double min_value = -1e300, double max_value = 1e300);
  static ParameterSpec integer(std::string name, int value, std::string description,
                               int min_value, int max_value);
  static ParameterSpec choice(std::string name, std::vector<std::string> choices,
                              std::string description);
};

/// Values of a system's parameters after defaults and `--set` overrides, validated.
class ParameterValues {
 public:
  ParameterValues() = default;

  /// Defaults of `specs`, then `overrides` (name → text). Throws std::invalid_argument with one
  /// readable line for an unknown name, a malformed, non-finite or out-of-range value.
  static ParameterValues resolve(const std::vector<ParameterSpec>& specs,
                                 const std::map<std::string, std::string>& overrides,
                                 const std::string& system_name);

  double real(const std::string& name) const;
  int integer(const std::string& name) const;
  const std::string& choice(const std::string& name) const;
  bool has(const std::string& name) const { return text_.count(name) > 0; }
  /// True when the user set this name explicitly.
  bool was_set(const std::string& name) const { return explicitly_set_.count(name) > 0; }
  /// Every value as "name=value" items joined by ';', numbers exact (%.17g), names sorted: what a
  /// checkpoint records of its run.
  std::string describe() const;

 private:
  std::map<std::string, std::string> text_;
  std::map<std::string, double> numbers_;
  std::map<std::string, bool> explicitly_set_;
};

/// A finite real number written in full (the syntax of strtod; subnormal values are numbers too).
/// Throws InvalidInput naming `what` and quoting the text otherwise.
double parse_real(const std::string& what, const std::string& text);

/// Parses "NAME=VALUE" into the map; throws std::invalid_argument if malformed or repeated.
void parse_assignment(const std::string& assignment, std::map<std::string, std::string>& into);

}  // namespace mechint::app
