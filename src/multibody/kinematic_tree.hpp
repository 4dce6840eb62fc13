#pragma once
/// \file
/// A URDF as a tree of rigid bodies (DESIGN §12, "Tree and coordinates"): the root link fixed to the
/// world; links joined by fixed joints merged into one body (their spatial inertias transformed into
/// the body's frame and added, Featherstone, "Rigid Body Dynamics Algorithms", §2.12-2.13); one
/// coordinate per revolute, continuous or prismatic joint, named after the joint, ordered depth-first
/// from the root with children in the document order of their joints.
///
/// Every error is one line `FILE:LINE: what` (InvalidInput, exit 2): a joint whose parent or child
/// is missing, a link that is the child of two joints, links not reachable from the one root (a
/// cycle), a zero axis, an inertia that is not positive definite, a moving joint whose bodies
/// below carry no mass, a mimic of a missing, fixed or floating joint. A floating joint's
/// orientation is a quaternion held to unit length by a constraint (000 §5.1's formulation; the
/// Lie-group coordinates of DESIGN §12 are to come).

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "multibody/urdf_robot.hpp"

namespace mechint::multibody {

/// Mass, centre of mass and rotational inertia about the centre of mass, in a body's frame.
struct BodyInertia {
  double mass = 0.0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
};

/// A rigid body of the tree: a link and the links merged into it by fixed joints.
struct TreeBody {
  std::string link;                ///< the link whose frame is the body's frame
  std::vector<std::string> merged; ///< links merged into it (fixed joints), in the order met
  int parent = -1;                 ///< the parent body (-1: the root, fixed to the world)
  int joint = -1;                  ///< the moving joint that carries it (-1: the root)
  BodyInertia inertia;             ///< of the body and everything merged into it
};

/// A moving joint: one coordinate.
struct TreeJoint {
  std::string name;        ///< the URDF's
  std::string coordinate;  ///< the coordinate's name (the joint's, made an identifier if need be);
                           ///< a floating joint's seven are NAME_x, _y, _z, _qw, _qx, _qy, _qz
  /// The joint's coordinates' names in order: one, a planar joint's three (NAME_x, NAME_y in the
  /// plane normal to the axis, NAME_th about it), or a floating joint's seven.
  std::vector<std::string> coordinates() const;
  /// A planar joint's plane, in the joint frame: columns e1, e2 (NAME_x and NAME_y move along them)
  /// and the axis, right-handed; e1, e2 the frame's own axes when the axis is one of them.
  Eigen::Matrix3d plane() const;
  UrdfJointType type = UrdfJointType::kRevolute;
  int parent = 0;          ///< the parent body
  int child = 0;           ///< the body it carries
  /// The joint frame in the parent body's frame (fixed transforms of merged links included).
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();  ///< unit, in the joint frame
  double damping = 0.0;
  std::optional<double> lower, upper, effort;
  int mimic = -1;  ///< the joint it mimics (index into joints), or -1
  double mimic_multiplier = 1.0, mimic_offset = 0.0;
  int line = 0;
};

struct KinematicTree {
  std::string file;
  std::string robot;
  std::vector<TreeBody> bodies;  ///< bodies[0] is the root
  std::vector<TreeJoint> joints; ///< in coordinate order (depth-first); joint i carries body joints[i].child
  std::vector<std::string> fixed_merged;  ///< "child into parent" for each fixed joint
  std::vector<std::string> ignored;       ///< from the URDF reader
  double moving_mass = 0.0;  ///< of the bodies that move
  double total_mass = 0.0;   ///< of every link, the root's included
};

/// Where the URDF's root link is: fixed to the world (the default), or floating free (`--set
/// root=floating`, DESIGN §12): joined to the world by a floating joint named after the link.
enum class RootJoint { kFixed, kFloating };

/// The tree of a URDF; throws InvalidInput as the file comment says.
KinematicTree build_kinematic_tree(const UrdfRobot& robot, RootJoint root = RootJoint::kFixed);

/// What `mechint check robot.urdf` prints of the tree: links, joints, coordinates, masses, what was
/// merged or ignored.
std::string describe_kinematic_tree(const KinematicTree& tree);

/// The rotation of fixed-axis roll, pitch, yaw: Rz(yaw) Ry(pitch) Rx(roll) (URDF's `rpy`).
Eigen::Matrix3d rotation_from_rpy(const Vector3& rpy);

}  // namespace mechint::multibody
