// The tree of a URDF (multibody/kinematic_tree.hpp).
#include "multibody/kinematic_tree.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/model_file.hpp"  // is_reserved_name, kMaxNameLength

namespace mechint::multibody {
namespace {

/// Where a link is: its body and the link frame in the body's frame.
struct LinkPlace {
  int body = -1;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
};

Eigen::Vector3d vec(const Vector3& v) { return {v[0], v[1], v[2]}; }

/// `name` as a coordinate's name of the model-file grammar (DESIGN §6): letters, digits and '_',
/// a letter first, at most kMaxNameLength − 8 (room for the prefix damping_); not a reserved name;
/// not one taken; not ending in "_dot" (that is a velocity's name); not beginning as the model's
/// parameters and controls do. Unchanged whenever it already is one.
std::string identifier_for(const std::string& name, const std::set<std::string>& taken) {
  std::string id;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    id += ok ? c : '_';
  }
  if (id.empty() || !((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= 'A' && id[0] <= 'Z'))) id = "j" + id;
  if (id.size() > model_file::kMaxNameLength - 8) id.resize(model_file::kMaxNameLength - 8);
  if (id.size() >= 4 && id.compare(id.size() - 4, 4, "_dot") == 0) id += "_q";
  // The model's other names begin so: the parameters gravity_x.., damping_NAME and the controls u_NAME.
  for (const char* prefix : {"gravity_", "damping_", "u_"})
    if (id.rfind(prefix, 0) == 0) id = "j" + id;
  std::string candidate = id;
  for (int k = 2; model_file::is_reserved_name(candidate) || taken.count(candidate); ++k)
    candidate = id + "_" + std::to_string(k);
  return candidate;
}

class TreeBuilder {
 public:
  TreeBuilder(const UrdfRobot& robot, RootJoint root_joint) : robot_(robot), root_joint_(root_joint) {}

  KinematicTree build() {
    tree_.file = robot_.file;
    tree_.robot = robot_.name;
    tree_.ignored = robot_.ignored;
    index_links();
    const int root = find_root();
    walk(root);
    if (tree_.joints.empty())
      fail(robot_.links[static_cast<std::size_t>(root)].line,
           "the robot has no moving joint (revolute, continuous, prismatic): nothing in it can move");
    add_inertias();
    check_masses();
    resolve_mimics();
    name_coordinates();
    std::size_t coordinates = 0;
    for (const TreeJoint& j : tree_.joints) coordinates += j.coordinates().size();
    if (coordinates > model_file::kMaxCoordinates)
      fail(robot_.links[static_cast<std::size_t>(root)].line,
           "the robot has " + std::to_string(coordinates) + " coordinates: at most " +
               std::to_string(model_file::kMaxCoordinates) + " are supported (the limit of model files)");
    return std::move(tree_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InvalidInput(printable_line(robot_.file, 200) + ":" + std::to_string(line) + ": " + what);
  }
  static std::string q(const std::string& name) { return quote_for_message(name); }

  void index_links() {
    for (std::size_t i = 0; i < robot_.links.size(); ++i)
      if (!link_index_.emplace(robot_.links[i].name, static_cast<int>(i)).second)
        fail(robot_.links[i].line, "a second link named " + q(robot_.links[i].name));
    std::set<std::string> joint_names;
    parent_joint_.assign(robot_.links.size(), -1);
    children_.assign(robot_.links.size(), {});
    for (std::size_t j = 0; j < robot_.joints.size(); ++j) {
      const UrdfJoint& joint = robot_.joints[j];
      if (!joint_names.insert(joint.name).second) fail(joint.line, "a second joint named " + q(joint.name));
      const auto parent = link_index_.find(joint.parent);
      if (parent == link_index_.end()) fail(joint.line, "joint " + q(joint.name) + ": its parent link " + q(joint.parent) + " does not exist");
      const auto child = link_index_.find(joint.child);
      if (child == link_index_.end()) fail(joint.line, "joint " + q(joint.name) + ": its child link " + q(joint.child) + " does not exist");
      if (parent->second == child->second) fail(joint.line, "joint " + q(joint.name) + " joins link " + q(joint.child) + " to itself");
      int& carried_by = parent_joint_[static_cast<std::size_t>(child->second)];
      if (carried_by >= 0)
        fail(joint.line, "link " + q(joint.child) + " is the child of joints " + q(robot_.joints[static_cast<std::size_t>(carried_by)].name) +
                             " and " + q(joint.name) + ": a closed loop, which a tree cannot have");
      carried_by = static_cast<int>(j);
      children_[static_cast<std::size_t>(parent->second)].push_back(static_cast<int>(j));
    }
  }

  int find_root() const {
    std::vector<int> roots;
    for (std::size_t i = 0; i < robot_.links.size(); ++i)
      if (parent_joint_[i] < 0) roots.push_back(static_cast<int>(i));
    if (roots.empty()) fail(robot_.joints.front().line, "every link is a joint's child: the joints form a cycle");
    if (roots.size() > 1) {
      const UrdfLink& second = robot_.links[static_cast<std::size_t>(roots[1])];
      fail(second.line, "links " + q(robot_.links[static_cast<std::size_t>(roots[0])].name) + " and " + q(second.name) +
                            " are both roots (no joint's child): the robot is not one tree");
    }
    return roots.front();
  }

  /// Depth-first from the root, children in the document order of their joints; fixed joints merge.
  void walk(int root) {
    places_.assign(robot_.links.size(), LinkPlace{});
    const UrdfLink& root_link = robot_.links[static_cast<std::size_t>(root)];
    if (root_joint_ == RootJoint::kFloating) {
      // The world, then the root link on a floating joint named after it, at the world's origin.
      tree_.bodies.push_back(TreeBody{"world", {}, -1, -1, {}});
      TreeJoint t;
      t.name = root_link.name;
      t.type = UrdfJointType::kFloating;
      t.parent = 0;
      t.child = 1;
      t.line = root_link.line;
      tree_.joints.push_back(std::move(t));
      tree_.bodies.push_back(TreeBody{root_link.name, {}, 0, 0, {}});
      places_[static_cast<std::size_t>(root)].body = 1;
    } else {
      tree_.bodies.push_back(TreeBody{root_link.name, {}, -1, -1, {}});
      places_[static_cast<std::size_t>(root)].body = 0;
    }
    std::vector<int> stack(children_[static_cast<std::size_t>(root)].rbegin(), children_[static_cast<std::size_t>(root)].rend());
    std::size_t reached = 1;
    while (!stack.empty()) {
      const int j = stack.back();
      stack.pop_back();
      const UrdfJoint& joint = robot_.joints[static_cast<std::size_t>(j)];
      const LinkPlace& parent = places_[static_cast<std::size_t>(link_index_.at(joint.parent))];
      const int child_link = link_index_.at(joint.child);
      LinkPlace& child = places_[static_cast<std::size_t>(child_link)];
      const Eigen::Matrix3d rotation = parent.rotation * rotation_from_rpy(joint.origin.rpy);
      const Eigen::Vector3d translation = parent.translation + parent.rotation * vec(joint.origin.xyz);
      if (joint.type == UrdfJointType::kFixed) {
        child = LinkPlace{parent.body, rotation, translation};
        tree_.bodies[static_cast<std::size_t>(parent.body)].merged.push_back(joint.child);
        tree_.fixed_merged.push_back(joint.child + " into " + tree_.bodies[static_cast<std::size_t>(parent.body)].link +
                                     " (joint " + joint.name + ")");
      } else {
        TreeJoint t;
        t.name = joint.name;
        t.type = joint.type;
        t.parent = parent.body;
        t.child = static_cast<int>(tree_.bodies.size());
        t.rotation = rotation;
        t.translation = translation;
        if (joint.type != UrdfJointType::kFloating) {
          const Eigen::Vector3d axis = vec(joint.axis);
          if (!(axis.norm() > 1e-9)) fail(joint.axis_line, "joint " + q(joint.name) + ": its axis is zero");
          t.axis = axis / axis.norm();
        }
        t.damping = joint.damping;
        t.lower = joint.lower;
        t.upper = joint.upper;
        t.effort = joint.effort;
        t.line = joint.line;
        joint_of_urdf_[j] = static_cast<int>(tree_.joints.size());
        tree_.bodies.push_back(TreeBody{joint.child, {}, parent.body, static_cast<int>(tree_.joints.size()), {}});
        tree_.joints.push_back(std::move(t));
        child = LinkPlace{static_cast<int>(tree_.bodies.size()) - 1, Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero()};
      }
      ++reached;
      const auto& next = children_[static_cast<std::size_t>(child_link)];
      stack.insert(stack.end(), next.rbegin(), next.rend());
    }
    if (reached != robot_.links.size()) {
      // Every link has at most one parent and the root none: the links not reached hang from each
      // other in a cycle.
      for (std::size_t i = 0; i < robot_.links.size(); ++i)
        if (places_[i].body < 0)
          fail(robot_.joints[static_cast<std::size_t>(parent_joint_[i])].line,
               "link " + q(robot_.links[i].name) + " is not reachable from the root link " +
                   q(tree_.bodies.front().link) + ": its joints form a cycle");
    }
  }

  /// Each link's inertia, checked, moved into its body's frame and added (parallel-axis theorem).
  void add_inertias() {
    std::vector<std::vector<BodyInertia>> parts(tree_.bodies.size());
    for (std::size_t i = 0; i < robot_.links.size(); ++i) {
      const UrdfLink& link = robot_.links[i];
      if (!link.inertial) continue;
      const UrdfInertial& in = *link.inertial;
      Eigen::Matrix3d inertia;
      inertia << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      const double smallest = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia, Eigen::EigenvaluesOnly).eigenvalues()(0);
      if (!(smallest > 0.0))
        fail(in.line, "the inertia of link " + q(link.name) + " is not positive definite (smallest eigenvalue " +
                          format_number(smallest) + ")");
      const LinkPlace& place = places_[i];
      const Eigen::Matrix3d axes = place.rotation * rotation_from_rpy(in.origin.rpy);
      parts[static_cast<std::size_t>(place.body)].push_back(
          BodyInertia{in.mass, place.translation + place.rotation * vec(in.origin.xyz), axes * inertia * axes.transpose()});
      tree_.total_mass += in.mass;
      if (place.body != 0) tree_.moving_mass += in.mass;
    }
    for (std::size_t b = 0; b < parts.size(); ++b) {
      BodyInertia sum;
      for (const auto& p : parts[b]) {
        sum.mass += p.mass;
        sum.com += p.mass * p.com;
      }
      if (sum.mass == 0.0) continue;
      sum.com /= sum.mass;
      for (const auto& p : parts[b]) {
        const Eigen::Vector3d d = p.com - sum.com;
        sum.inertia += p.inertia + p.mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
      }
      tree_.bodies[b].inertia = sum;
    }
  }

  /// A moving joint must move some mass: else its coordinate has no inertia (a zero row of the mass
  /// matrix). The inertias are positive definite, so a body with mass resists every motion of it.
  void check_masses() {
    std::vector<double> below(tree_.bodies.size(), 0.0);
    for (std::size_t b = tree_.bodies.size(); b-- > 1;) {
      below[b] += tree_.bodies[b].inertia.mass;
      below[static_cast<std::size_t>(tree_.bodies[b].parent)] += below[b];
    }
    for (const TreeJoint& j : tree_.joints)
      if (!(below[static_cast<std::size_t>(j.child)] > 0.0))
        fail(j.line, "joint " + q(j.name) + " moves link " + q(tree_.bodies[static_cast<std::size_t>(j.child)].link) +
                         ", but neither it nor any link below it has inertia: the joint's coordinate would have none");
  }

  void resolve_mimics() {
    std::map<std::string, int> by_name;
    for (std::size_t i = 0; i < tree_.joints.size(); ++i) by_name.emplace(tree_.joints[i].name, static_cast<int>(i));
    for (const auto& [urdf_index, tree_index] : joint_of_urdf_) {
      const UrdfJoint& joint = robot_.joints[static_cast<std::size_t>(urdf_index)];
      if (!joint.mimic) continue;
      const UrdfMimic& m = *joint.mimic;
      const auto found = by_name.find(m.joint);
      if (found == by_name.end()) {
        bool fixed = false;
        for (const UrdfJoint& other : robot_.joints) fixed = fixed || other.name == m.joint;
        fail(m.line, "joint " + q(joint.name) + " mimics " + q(m.joint) +
                         (fixed ? ", a fixed joint: it has no coordinate to follow" : ", which is no joint of the robot"));
      }
      if (found->second == tree_index) fail(m.line, "joint " + q(joint.name) + " mimics itself");
      for (const UrdfJointType t : {joint.type, tree_.joints[static_cast<std::size_t>(found->second)].type})
        if (t == UrdfJointType::kFloating || t == UrdfJointType::kPlanar)
          fail(m.line, "joint " + q(joint.name) + ": a floating or planar joint neither mimics nor is mimicked (it has "
                                                  "several coordinates)");
      TreeJoint& t = tree_.joints[static_cast<std::size_t>(tree_index)];
      t.mimic = found->second;
      t.mimic_multiplier = m.multiplier;
      t.mimic_offset = m.offset;
    }
    // A cycle of mimics (a follows b, b follows a) gives dependent constraints.
    for (std::size_t i = 0; i < tree_.joints.size(); ++i) {
      int at = static_cast<int>(i);
      for (std::size_t steps = 0; at >= 0 && steps <= tree_.joints.size(); ++steps) at = tree_.joints[static_cast<std::size_t>(at)].mimic;
      if (at >= 0) fail(tree_.joints[i].line, "joint " + q(tree_.joints[i].name) + " is in a cycle of <mimic> joints");
    }
  }

  void name_coordinates() {
    std::set<std::string> taken;
    for (TreeJoint& j : tree_.joints) {
      j.coordinate = identifier_for(j.name, taken);
      // A floating or planar joint's names must be free too: a suffix until they all are.
      for (int k = 2; j.type == UrdfJointType::kFloating || j.type == UrdfJointType::kPlanar; ++k) {
        bool free = true;
        for (const auto& name : j.coordinates())
          free = free && !taken.count(name) && !model_file::is_reserved_name(name);
        if (free) break;
        j.coordinate = identifier_for(j.name + "_" + std::to_string(k), taken);
      }
      for (const auto& name : j.coordinates()) taken.insert(name);
    }
  }

  const UrdfRobot& robot_;
  RootJoint root_joint_;
  KinematicTree tree_;
  std::map<std::string, int> link_index_;
  std::vector<int> parent_joint_;             ///< per link: the joint whose child it is, or -1
  std::vector<std::vector<int>> children_;    ///< per link: joints whose parent it is, document order
  std::vector<LinkPlace> places_;
  std::map<int, int> joint_of_urdf_;          ///< URDF joint index -> tree joint index (moving joints)
};

std::string list(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& s : items) text += (text.empty() ? "" : ", ") + s;
  return text.empty() ? "none" : text;
}

}  // namespace

std::vector<std::string> TreeJoint::coordinates() const {
  if (type == UrdfJointType::kPlanar) return {coordinate + "_x", coordinate + "_y", coordinate + "_th"};
  if (type != UrdfJointType::kFloating) return {coordinate};
  std::vector<std::string> names;
  for (const char* suffix : {"_x", "_y", "_z", "_qw", "_qx", "_qy", "_qz"}) names.push_back(coordinate + suffix);
  return names;
}

Eigen::Matrix3d TreeJoint::plane() const {
  // e1, e2 and the axis a right-handed frame; the frame's own axes when the axis is one of them.
  Eigen::Vector3d e1;
  if (std::abs(std::abs(axis.z()) - 1.0) <= 1e-15) e1 = Eigen::Vector3d::UnitX();
  else if (std::abs(std::abs(axis.x()) - 1.0) <= 1e-15) e1 = Eigen::Vector3d::UnitY();
  else if (std::abs(std::abs(axis.y()) - 1.0) <= 1e-15) e1 = Eigen::Vector3d::UnitZ();
  else e1 = axis.unitOrthogonal();
  Eigen::Matrix3d m;
  m.col(0) = e1;
  m.col(1) = axis.cross(e1);
  m.col(2) = axis;
  return m;
}

Eigen::Matrix3d rotation_from_rpy(const Vector3& rpy) {
  return (Eigen::AngleAxisd(rpy[2], Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy[1], Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy[0], Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

KinematicTree build_kinematic_tree(const UrdfRobot& robot, RootJoint root) { return TreeBuilder(robot, root).build(); }

std::string describe_kinematic_tree(const KinematicTree& tree) {
  std::ostringstream out;
  out << "robot " << tree.robot << " (" << tree.file << "): " << tree.bodies.size() << " bodies, " << tree.joints.size()
      << " moving joints, mass " << format_number(tree.total_mass) << " (moving " << format_number(tree.moving_mass)
      << ")\n  root link "
      << (tree.bodies.size() > 1 && tree.bodies[1].joint == 0 && tree.joints.front().type == UrdfJointType::kFloating &&
                  tree.bodies.front().link == "world" && tree.joints.front().name == tree.bodies[1].link
              ? tree.bodies[1].link + ", floating (root=floating)"
              : tree.bodies.front().link + ", fixed to the world")
      << "\n";
  // The tree, indented by depth.
  std::vector<int> depth(tree.bodies.size(), 0);
  for (std::size_t b = 1; b < tree.bodies.size(); ++b) depth[b] = depth[static_cast<std::size_t>(tree.bodies[b].parent)] + 1;
  for (const TreeJoint& j : tree.joints) {
    const TreeBody& body = tree.bodies[static_cast<std::size_t>(j.child)];
    out << "  " << std::string(2 * static_cast<std::size_t>(depth[static_cast<std::size_t>(j.child)] - 1), ' ') << "joint "
        << j.name << " (" << joint_type_name(j.type);
    if (j.type == UrdfJointType::kFloating)
      out << ", coordinates " << list(j.coordinates()) << ": position, unit quaternion";
    else if (j.type == UrdfJointType::kPlanar) {
      const Eigen::Matrix3d plane = j.plane();
      out << ", coordinates " << list(j.coordinates()) << ": along " << format_number(plane(0, 0)) << " "
          << format_number(plane(1, 0)) << " " << format_number(plane(2, 0)) << ", along " << format_number(plane(0, 1))
          << " " << format_number(plane(1, 1)) << " " << format_number(plane(2, 1)) << ", about the axis "
          << format_number(j.axis.x()) << " " << format_number(j.axis.y()) << " " << format_number(j.axis.z());
    }
    else
      out << ", coordinate " << j.coordinate << ", axis " << format_number(j.axis.x()) << " " << format_number(j.axis.y())
          << " " << format_number(j.axis.z());
    out << ") -> link " << body.link;
    if (!body.merged.empty()) out << " + " << list(body.merged);
    out << ", mass " << format_number(body.inertia.mass);
    if (j.damping != 0.0) out << ", damping " << format_number(j.damping);
    if (j.mimic >= 0)
      out << ", mimics " << tree.joints[static_cast<std::size_t>(j.mimic)].name << " (" << j.coordinate << " = "
          << format_number(j.mimic_multiplier) << " * " << tree.joints[static_cast<std::size_t>(j.mimic)].coordinate
          << " + " << format_number(j.mimic_offset) << ")";
    out << "\n";
  }
  out << "  merged by fixed joints: " << list(tree.fixed_merged) << "\n  read and not modelled: " << list(tree.ignored)
      << "\n";
  return out.str();
}

}  // namespace mechint::multibody
