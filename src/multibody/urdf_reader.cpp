// Reading a URDF (multibody/urdf_robot.hpp): tinyxml2 parses the XML; this file reads the elements
// of the URDF specification (wiki.ros.org/urdf/XML) that mechint models and records the others.
#include <tinyxml2.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/input_file.hpp"
#include "multibody/urdf_robot.hpp"

namespace mechint::multibody {
namespace {

using tinyxml2::XMLElement;

class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}

  UrdfRobot read(std::string_view text) {
    tinyxml2::XMLDocument document;
    // tinyxml2 limits the depth of nested elements itself (TINYXML2_MAX_ELEMENT_DEPTH), so a
    // hostile nesting is a parse error, not a stack overflow.
    if (document.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
      fail(document.ErrorLineNum(), std::string("not well-formed XML: ") + document.ErrorName());
    const XMLElement* robot = document.RootElement();
    if (!robot) fail(1, "no element: a URDF is a <robot> element");
    if (std::string_view(robot->Name()) != "robot")
      fail(robot->GetLineNum(), "the root element is <" + printable_line(robot->Name(), 40) + ">, not <robot>");
    UrdfRobot r;
    r.file = file_;
    r.name = required_name(*robot, "robot");
    std::set<std::string> ignored;
    for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string_view kind = e->Name();
      if (kind == "link") {
        if (r.links.size() == kMaxUrdfLinks) fail(e->GetLineNum(), "more than " + std::to_string(kMaxUrdfLinks) + " links");
        r.links.push_back(read_link(*e, ignored));
      } else if (kind == "joint") {
        if (r.joints.size() == kMaxUrdfLinks)
          fail(e->GetLineNum(), "more than " + std::to_string(kMaxUrdfLinks) + " joints");
        r.joints.push_back(read_joint(*e, ignored));
      } else {
        ignored.insert("<" + printable_line(kind, 40) + "> elements");
      }
    }
    if (r.links.empty()) fail(robot->GetLineNum(), "the robot has no <link>");
    r.ignored.assign(ignored.begin(), ignored.end());
    return r;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InvalidInput(printable_line(file_, 200) + ":" + std::to_string(line) + ": " + what);
  }

  std::string required_name(const XMLElement& e, const std::string& element) const {
    const char* name = e.Attribute("name");
    if (!name) fail(e.GetLineNum(), "<" + element + "> without a name");
    if (!*name) fail(e.GetLineNum(), "<" + element + "> with an empty name");
    return name;
  }

  const char* required_attribute(const XMLElement& e, const char* attribute) const {
    const char* value = e.Attribute(attribute);
    if (!value) fail(e.GetLineNum(), std::string("<") + e.Name() + "> without its attribute '" + attribute + "'");
    return value;
  }

  /// A finite number, the whole attribute.
  double number(const XMLElement& e, const char* attribute, const char* value) const {
    const std::string text(value);
    const char* begin = text.c_str();
    while (*begin == ' ' || *begin == '\t' || *begin == '\n' || *begin == '\r') ++begin;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(begin, &end);
    const char* rest = end;
    while (rest && (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r')) ++rest;
    if (end == begin || *rest != '\0')
      fail(e.GetLineNum(), std::string("<") + e.Name() + " " + attribute + "> is not a number: " + quote_for_message(text));
    if (!std::isfinite(x))
      fail(e.GetLineNum(), std::string("<") + e.Name() + " " + attribute + "> is not finite: " + quote_for_message(text));
    return x;
  }

  std::optional<double> optional_number(const XMLElement& e, const char* attribute) const {
    const char* value = e.Attribute(attribute);
    if (!value) return std::nullopt;
    return number(e, attribute, value);
  }

  /// Three numbers separated by white space.
  Vector3 vector3(const XMLElement& e, const char* attribute, const char* value) const {
    std::istringstream in{std::string(value)};
    Vector3 v{};
    std::string word;
    int count = 0;
    while (in >> word) {
      if (count == 3) break;
      v[static_cast<std::size_t>(count++)] = number(e, attribute, word.c_str());
    }
    if (count != 3 || (in >> word))
      fail(e.GetLineNum(), std::string("<") + e.Name() + " " + attribute + "> must be three numbers, not " +
                               quote_for_message(value));
    return v;
  }

  UrdfPose pose(const XMLElement* origin) const {
    UrdfPose p;
    if (!origin) return p;
    if (const char* xyz = origin->Attribute("xyz")) p.xyz = vector3(*origin, "xyz", xyz);
    if (const char* rpy = origin->Attribute("rpy")) p.rpy = vector3(*origin, "rpy", rpy);
    return p;
  }

  /// The one child element `name` of `e`, or null; a second one is an error (which would win?).
  const XMLElement* single_child(const XMLElement& e, const char* name) const {
    const XMLElement* child = e.FirstChildElement(name);
    if (child && child->NextSiblingElement(name))
      fail(child->NextSiblingElement(name)->GetLineNum(), std::string("a second <") + name + "> in <" + e.Name() + ">");
    return child;
  }

  UrdfLink read_link(const XMLElement& e, std::set<std::string>& ignored) const {
    UrdfLink link;
    link.name = required_name(e, "link");
    link.line = e.GetLineNum();
    if (const XMLElement* inertial = single_child(e, "inertial")) {
      UrdfInertial in;
      in.line = inertial->GetLineNum();
      in.origin = pose(single_child(*inertial, "origin"));
      const XMLElement* mass = single_child(*inertial, "mass");
      if (!mass) fail(inertial->GetLineNum(), "<inertial> of link " + quote_for_message(link.name) + " without <mass>");
      in.mass = number(*mass, "value", required_attribute(*mass, "value"));
      if (in.mass < 0.0) fail(mass->GetLineNum(), "the mass of link " + quote_for_message(link.name) + " is negative");
      if (in.mass == 0.0)
        fail(mass->GetLineNum(), "the mass of link " + quote_for_message(link.name) +
                                     " is zero: leave out <inertial> for a link without inertia");
      const XMLElement* inertia = single_child(*inertial, "inertia");
      if (!inertia)
        fail(inertial->GetLineNum(), "<inertial> of link " + quote_for_message(link.name) + " without <inertia>");
      double* entries[] = {&in.ixx, &in.ixy, &in.ixz, &in.iyy, &in.iyz, &in.izz};
      const char* names[] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
      for (int i = 0; i < 6; ++i) *entries[i] = number(*inertia, names[i], required_attribute(*inertia, names[i]));
      link.inertial = in;
    }
    for (const char* geometry : {"visual", "collision"})
      if (e.FirstChildElement(geometry)) ignored.insert(std::string("<") + geometry + "> geometry (not drawn yet)");
    return link;
  }

  UrdfJointType joint_type(const XMLElement& e) const {
    const std::string type = required_attribute(e, "type");
    for (const UrdfJointType t : {UrdfJointType::kRevolute, UrdfJointType::kContinuous, UrdfJointType::kPrismatic,
                                  UrdfJointType::kFixed, UrdfJointType::kFloating, UrdfJointType::kPlanar})
      if (type == joint_type_name(t)) return t;
    fail(e.GetLineNum(), "joint type " + quote_for_message(type) +
                             " is not one of revolute, continuous, prismatic, fixed, floating, planar");
  }

  std::string link_reference(const XMLElement& joint, const char* element) const {
    const XMLElement* e = single_child(joint, element);
    if (!e) fail(joint.GetLineNum(), std::string("<joint> without <") + element + " link=...>");
    const std::string link = required_attribute(*e, "link");
    if (link.empty()) fail(e->GetLineNum(), std::string("<") + element + "> with an empty link");
    return link;
  }

  UrdfJoint read_joint(const XMLElement& e, std::set<std::string>& ignored) const {
    UrdfJoint j;
    j.name = required_name(e, "joint");
    j.line = e.GetLineNum();
    j.type = joint_type(e);
    j.parent = link_reference(e, "parent");
    j.child = link_reference(e, "child");
    j.origin = pose(single_child(e, "origin"));
    if (const XMLElement* axis = single_child(e, "axis")) {
      j.axis = vector3(*axis, "xyz", required_attribute(*axis, "xyz"));
      j.axis_line = axis->GetLineNum();
    } else {
      j.axis_line = j.line;
    }
    if (const XMLElement* limit = single_child(e, "limit")) {
      j.lower = optional_number(*limit, "lower");
      j.upper = optional_number(*limit, "upper");
      j.effort = optional_number(*limit, "effort");
      j.velocity = optional_number(*limit, "velocity");
      if (j.effort && *j.effort < 0.0) fail(limit->GetLineNum(), "<limit effort> is negative");
      if (j.lower && j.upper && *j.lower > *j.upper) fail(limit->GetLineNum(), "<limit> lower is above upper");
    }
    if (const XMLElement* dynamics = single_child(e, "dynamics")) {
      j.damping = optional_number(*dynamics, "damping").value_or(0.0);
      j.friction = optional_number(*dynamics, "friction").value_or(0.0);
      if (j.damping < 0.0) fail(dynamics->GetLineNum(), "<dynamics damping> is negative");
      if (j.friction != 0.0) ignored.insert("<dynamics friction> (not modelled)");
    }
    if (const XMLElement* mimic = single_child(e, "mimic")) {
      UrdfMimic m;
      m.joint = required_attribute(*mimic, "joint");
      m.multiplier = optional_number(*mimic, "multiplier").value_or(1.0);
      m.offset = optional_number(*mimic, "offset").value_or(0.0);
      m.line = mimic->GetLineNum();
      j.mimic = m;
    }
    for (const char* other : {"calibration", "safety_controller"})
      if (e.FirstChildElement(other)) ignored.insert(std::string("<") + other + "> of joints");
    return j;
  }

  const std::string& file_;
};

}  // namespace

std::string_view joint_type_name(UrdfJointType type) {
  switch (type) {
    case UrdfJointType::kRevolute: return "revolute";
    case UrdfJointType::kContinuous: return "continuous";
    case UrdfJointType::kPrismatic: return "prismatic";
    case UrdfJointType::kFixed: return "fixed";
    case UrdfJointType::kFloating: return "floating";
    case UrdfJointType::kPlanar: return "planar";
  }
  return "?";
}

UrdfRobot parse_urdf_text(std::string_view text, const std::string& file) { return Reader(file).read(text); }

UrdfRobot read_urdf_file(const std::string& path) {
  return parse_urdf_text(model_file::read_input_file(path, "URDF file"), path);
}

}  // namespace mechint::multibody
