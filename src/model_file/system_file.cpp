// A system given by a file (model_file/system_file.hpp).
#include "model_file/system_file.hpp"

#include "model_file/input_file.hpp"
#include "multibody/urdf_model.hpp"

namespace mechint::model_file {

SystemFile read_system_file(const std::string& path) {
  if (!multibody::is_urdf_file_name(path)) return {read_input_file(path, "model file"), {}};
  multibody::UrdfModel urdf = multibody::urdf_model(path);
  return {std::move(urdf.text), std::move(urdf.control_efforts)};
}

std::string system_file_text(const std::string& path) { return read_system_file(path).text; }

}  // namespace mechint::model_file
