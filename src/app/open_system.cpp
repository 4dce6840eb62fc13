#include "app/open_system.hpp"

#include "model_file/system_file.hpp"
#include "model_file/model_file_system.hpp"

namespace mechint::app {

std::shared_ptr<const SystemEntry> open_system(const std::string& name_or_path) {
  if (model_file::is_system_file_name(name_or_path))
    return std::make_shared<const SystemEntry>(model_file::model_file_system(name_or_path));
  // A built-in's entry is registered for the program's life: shared without an owner.
  return std::shared_ptr<const SystemEntry>(std::shared_ptr<const void>(), &find_system(name_or_path));
}

}  // namespace mechint::app
