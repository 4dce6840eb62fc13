#pragma once
/// \file
/// A system given by a file (DESIGN §6, §12): a model file (`.toml`) or a URDF (`.urdf`), which
/// model_file_system opens alike, a URDF written as a model file's text first.

#include <map>
#include <string>

#include "model_file/model_file.hpp"
#include "multibody/urdf_robot.hpp"

namespace mechint::model_file {

/// True for a model file's name or a URDF's: a system given by a file, opened by
/// model_file_system, its relative path resolved against the file that names it.
inline bool is_system_file_name(const std::string& name) {
  return is_model_file_name(name) || multibody::is_urdf_file_name(name);
}

/// A system file read once: its model-file text (a model file's own, or a URDF's written as one,
/// multibody/urdf_model.hpp) and, for a URDF, its joints' `<limit effort>` by control name.
struct SystemFile {
  std::string text;
  std::map<std::string, double> control_efforts;
};

/// Reads the file at `path`; throws InvalidInput for a file that cannot be read or modelled.
SystemFile read_system_file(const std::string& path);

/// Its text alone.
std::string system_file_text(const std::string& path);

}  // namespace mechint::model_file
