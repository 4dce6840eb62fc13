#pragma once
/// \file
/// A URDF as a model file (DESIGN §12, "Input"): read (urdf_robot.hpp), made a tree
/// (kinematic_tree.hpp) and written as a model file's text (tree_model_text.hpp), which the model
/// files' path (model_file/model_file_system.hpp) opens as it opens a `.toml`: `mechint run
/// arm.urdf`, `check`, sweeps, optimize, Python.

#include <map>
#include <string>
#include <utility>

#include "multibody/kinematic_tree.hpp"

namespace mechint::multibody {

/// A URDF as a model file: its text, and what the text cannot say.
struct UrdfModel {
  std::string text;
  /// `<limit effort>` by control name (u_NAME): the bounds of that control in optimize.
  std::map<std::string, double> control_efforts;
};

/// The URDF at `path` as a model file, from one reading of it; throws InvalidInput
/// `FILE:LINE: what` for a URDF mechint cannot model.
/// `root`: the root link fixed to the world, or floating.
UrdfModel urdf_model(const std::string& path, RootJoint root = RootJoint::kFixed);

/// Both ways at once from one reading of the file: fixed, then floating.
std::pair<UrdfModel, UrdfModel> urdf_models(const std::string& path);

/// Its text alone.
std::string urdf_model_text(const std::string& path);

/// What `mechint check robot.urdf` prints before the model's own description: the tree.
std::string describe_urdf(const std::string& path);

}  // namespace mechint::multibody
