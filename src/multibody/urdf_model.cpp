// A URDF as a model file (multibody/urdf_model.hpp).
#include "multibody/urdf_model.hpp"

#include "multibody/kinematic_tree.hpp"
#include "multibody/tree_model_text.hpp"
#include "multibody/urdf_robot.hpp"

namespace mechint::multibody {

namespace {

UrdfModel model_of(const KinematicTree& tree) {
  UrdfModel model{tree_model_text(tree), {}};
  for (const TreeJoint& j : tree.joints)
    if (j.effort && *j.effort > 0.0) {
      if (j.type == UrdfJointType::kPlanar)
        for (const auto& c : j.coordinates()) model.control_efforts.emplace("u_" + c, *j.effort);
      else if (j.type != UrdfJointType::kFloating)
        model.control_efforts.emplace(tree_control_name(j), *j.effort);
    }
  return model;
}

}  // namespace

UrdfModel urdf_model(const std::string& path, RootJoint root) {
  return model_of(build_kinematic_tree(read_urdf_file(path), root));
}

std::pair<UrdfModel, UrdfModel> urdf_models(const std::string& path) {
  const UrdfRobot robot = read_urdf_file(path);
  return {model_of(build_kinematic_tree(robot, RootJoint::kFixed)), model_of(build_kinematic_tree(robot, RootJoint::kFloating))};
}

std::string urdf_model_text(const std::string& path) { return urdf_model(path).text; }

std::string describe_urdf(const std::string& path) {
  return describe_kinematic_tree(build_kinematic_tree(read_urdf_file(path)));
}

}  // namespace mechint::multibody
