#pragma once
/// \file
/// A robot description (URDF, DESIGN §12) as read: the links with their inertia and the joints that
/// connect them, every number checked finite, every element with its line for messages. Read with
/// tinyxml2 under our own reader rather than liburdfdom: urdfdom reports a malformed file through
/// console_bridge's log and a null model, without the line; tinyxml2 keeps each element's line,
/// so every error is one line `FILE:LINE: what is wrong` (InvalidInput, exit 2). Nothing a URDF
/// names is opened (meshes, `package://` URIs) and nothing in it is executed.
///
/// What the elements mean (the tree, merged fixed joints, coordinates) is kinematic_tree.hpp's.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mechint::multibody {

using Vector3 = std::array<double, 3>;

/// `<origin xyz rpy>`: a translation and fixed-axis roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)).
struct UrdfPose {
  Vector3 xyz{0.0, 0.0, 0.0};
  Vector3 rpy{0.0, 0.0, 0.0};
};

/// `<inertial>`: mass, the centre of mass and the axes of `inertia` (its `<origin>`, in the link's
/// frame), and the inertia tensor about the centre of mass in those axes.
struct UrdfInertial {
  double mass = 0.0;
  UrdfPose origin;
  double ixx = 0.0, ixy = 0.0, ixz = 0.0, iyy = 0.0, iyz = 0.0, izz = 0.0;
  int line = 0;
};

struct UrdfLink {
  std::string name;
  std::optional<UrdfInertial> inertial;
  int line = 0;
};

enum class UrdfJointType { kRevolute, kContinuous, kPrismatic, kFixed, kFloating, kPlanar };

/// The URDF spelling of a joint type.
std::string_view joint_type_name(UrdfJointType type);

/// `<mimic joint multiplier offset>`: this joint's coordinate = multiplier · joint's + offset.
struct UrdfMimic {
  std::string joint;
  double multiplier = 1.0;
  double offset = 0.0;
  int line = 0;
};

struct UrdfJoint {
  std::string name;
  UrdfJointType type = UrdfJointType::kFixed;
  std::string parent;
  std::string child;
  UrdfPose origin;  ///< the joint frame in the parent link's frame
  Vector3 axis{1.0, 0.0, 0.0};  ///< in the joint frame, as written (not normalised)
  int axis_line = 0;
  std::optional<double> lower, upper, effort, velocity;  ///< `<limit>`
  double damping = 0.0;   ///< `<dynamics damping>`
  double friction = 0.0;  ///< `<dynamics friction>` (reported, not modelled)
  std::optional<UrdfMimic> mimic;
  int line = 0;
};

struct UrdfRobot {
  std::string file;  ///< for messages
  std::string name;
  std::vector<UrdfLink> links;    ///< in document order
  std::vector<UrdfJoint> joints;  ///< in document order
  /// What was read and not modelled, for `mechint check`: geometry, transmissions, friction.
  std::vector<std::string> ignored;
};

/// Most links (and so joints) a URDF may have: a tree of 10 000 bodies is far beyond any robot
/// and its model would exceed the model files' limit of coordinates anyway.
inline constexpr std::size_t kMaxUrdfLinks = 10'000;

/// Parses the text of a URDF. `file` names it in messages. Throws InvalidInput `FILE:LINE: what` on
/// malformed XML, a root element other than `<robot>`, a missing or duplicate name, an unknown joint
/// type, a missing parent or child, a number that does not parse or is not finite, a vector that is
/// not three numbers, a zero or negative mass (a link without inertia has no `<inertial>`), a
/// negative damping.
UrdfRobot parse_urdf_text(std::string_view text, const std::string& file);

/// Reads the URDF at `path` (model_file/input_file.hpp's checks: a regular file, at most 1 MiB).
UrdfRobot read_urdf_file(const std::string& path);

/// True for a name that ends in ".urdf".
inline bool is_urdf_file_name(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".urdf") == 0;
}

}  // namespace mechint::multibody
