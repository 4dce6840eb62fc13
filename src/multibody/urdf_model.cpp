// A URDF as a model file (multibody/urdf_model.hpp).
#include "multibody/urdf_model.hpp"

#include "multibody/kinematic_tree.hpp"
#include "multibody/tree_model_text.hpp"
#include "multibody/urdf_robot.hpp"

namespace mechint::multibody {

UrdfModel urdf_model(const std::string& path) {
  const KinematicTree tree = build_kinematic_tree(read_urdf_file(path));
  UrdfModel model{tree_model_text(tree), {}};
  for (const TreeJoint& j : tree.joints)
    if (j.type != UrdfJointType::kFloating && j.effort && *j.effort > 0.0) model.control_efforts.emplace(tree_control_name(j), *j.effort);
  return model;
}

std::string urdf_model_text(const std::string& path) { return urdf_model(path).text; }

std::string describe_urdf(const std::string& path) {
  return describe_kinematic_tree(build_kinematic_tree(read_urdf_file(path)));
}

}  // namespace mechint::multibody
