// A kinematic tree as a model file (multibody/tree_model_text.hpp).
#include "multibody/tree_model_text.hpp"

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace mechint::multibody {
namespace {

/// An expression of the model-file grammar with what folding needs: whether it is a number (and
/// which) and how tightly it binds (0: a sum, 1: a product or a negation, 2: an atom).
struct Term {
  std::string text;
  bool is_number = false;
  double value = 0.0;
  int binding = 2;

  bool is(double x) const { return is_number && value == x; }
};

Term number(double x) {
  if (x == 0.0) x = 0.0;  // no "-0"
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return Term{x < 0.0 ? "(" + std::string(buffer) + ")" : std::string(buffer), true, x, 2};
}
Term atom(const std::string& name) { return Term{name, false, 0.0, 2}; }
std::string operand(const Term& t, int binding) { return t.binding < binding ? "(" + t.text + ")" : t.text; }

Term operator+(const Term& a, const Term& b) {
  if (a.is_number && b.is_number) return number(a.value + b.value);
  if (a.is(0.0)) return b;
  if (b.is(0.0)) return a;
  if (b.is_number && b.value < 0.0) return Term{a.text + " - " + number(-b.value).text, false, 0.0, 0};
  return Term{a.text + " + " + b.text, false, 0.0, 0};
}
Term operator-(const Term& a) {
  if (a.is_number) return number(-a.value);
  return Term{"-" + operand(a, 1), false, 0.0, 1};
}
Term operator-(const Term& a, const Term& b) {
  if (a.is_number && b.is_number) return number(a.value - b.value);
  if (b.is(0.0)) return a;
  if (a.is(0.0)) return -b;
  return Term{a.text + " - " + operand(b, 1), false, 0.0, 0};
}
Term operator*(const Term& a, const Term& b) {
  if (a.is_number && b.is_number) return number(a.value * b.value);
  if (a.is(0.0) || b.is(0.0)) return number(0.0);
  if (a.is(1.0)) return b;
  if (b.is(1.0)) return a;
  if (a.is(-1.0)) return -b;
  if (b.is(-1.0)) return -a;
  return Term{operand(a, 1) + "*" + operand(b, 2), false, 0.0, 1};
}

using Vec = std::array<Term, 3>;
using Mat = std::array<Vec, 3>;  // rows

Vec numbers(const Eigen::Vector3d& v) { return {number(v.x()), number(v.y()), number(v.z())}; }
Mat numbers(const Eigen::Matrix3d& m) {
  Mat r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = number(m(i, j));
  return r;
}
Mat product(const Mat& a, const Mat& b) {
  Mat r;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
  return r;
}
Vec product(const Mat& a, const Vec& v) {
  Vec r;
  for (std::size_t i = 0; i < 3; ++i) r[i] = a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2];
  return r;
}
Vec transposed_product(const Mat& a, const Vec& v) {
  Vec r;
  for (std::size_t i = 0; i < 3; ++i) r[i] = a[0][i] * v[0] + a[1][i] * v[1] + a[2][i] * v[2];
  return r;
}
Vec operator+(const Vec& a, const Vec& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec operator*(const Vec& a, const Term& s) { return {a[0] * s, a[1] * s, a[2] * s}; }
Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Term dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// A TOML basic string of an expression or a name (only the grammar's characters reach it).
std::string quoted(const std::string& s) { return "\"" + s + "\""; }

class Writer {
 public:
  explicit Writer(const KinematicTree& tree) : tree_(tree) {}

  std::string write() {
    const std::size_t bodies = tree_.bodies.size();
    rotation_.resize(bodies);
    origin_.resize(bodies);
    omega_.resize(bodies);
    velocity_.resize(bodies);
    // The root is fixed to the world.
    rotation_[0] = numbers(Eigen::Matrix3d(Eigen::Matrix3d::Identity()));
    origin_[0] = velocity_[0] = omega_[0] = numbers(Eigen::Vector3d(Eigen::Vector3d::Zero()));
    Term kinetic = number(0.0), potential = number(0.0);
    for (std::size_t j = 0; j < tree_.joints.size(); ++j) {
      const TreeJoint& joint = tree_.joints[j];
      body_kinematics(joint);
      const auto k = static_cast<std::size_t>(joint.child);
      const BodyInertia& in = tree_.bodies[k].inertia;
      if (in.mass == 0.0) continue;
      const std::string p = "_b" + std::to_string(k) + "_";
      const Vec arm = define(p + "r", product(rotation_[k], numbers(in.com)));
      const Vec com = define(p + "c", origin_[k] + arm);
      com_[k] = com;
      const Vec com_velocity = define(p + "vc", velocity_[k] + cross(omega_[k], arm));
      const Vec body_rate = define(p + "wb", transposed_product(rotation_[k], omega_[k]));
      Term rotational = number(0.0);
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = a; b < 3; ++b)
          rotational = rotational + number(in.inertia(static_cast<int>(a), static_cast<int>(b)) * (a == b ? 0.5 : 1.0)) *
                                        body_rate[a] * body_rate[b];
      const Term t = define(p + "T", number(0.5 * in.mass) * dot(com_velocity, com_velocity) + rotational);
      const Term v = define(p + "V", number(-in.mass) * dot(gravity(), com));
      kinetic = kinetic + t;
      potential = potential + v;
    }
    std::ostringstream out;
    header(out);
    out << "lagrangian = " << quoted((kinetic - potential).text) << "\n";
    constraints(out);
    forces(out);
    symmetries(out);
    initial(out);
    out << "\n[definitions]\n" << definitions_.str();
    draw(out);
    return out.str();
  }

 private:
  Vec gravity() const { return {atom("gravity_x"), atom("gravity_y"), atom("gravity_z")}; }

  /// `name = "expression"` unless it is a number or a name already; the term that stands for it.
  Term define(const std::string& name, const Term& value) {
    if (value.is_number || value.binding == 2) return value;
    definitions_ << name << " = " << quoted(value.text) << "\n";
    return atom(name);
  }
  Vec define(const std::string& name, const Vec& v) {
    return {define(name + "x", v[0]), define(name + "y", v[1]), define(name + "z", v[2])};
  }
  Mat define(const std::string& name, const Mat& m) {
    Mat r;
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j) r[i][j] = define(name + std::to_string(i) + std::to_string(j), m[i][j]);
    return r;
  }

  /// Rodrigues' rotation about the unit axis a by q: cos q δ_ij + sin q [a]x_ij + (1 − cos q) a_i a_j,
  /// its diagonal written a_i² + (1 − a_i²) cos q so that a frame axis gives exact ones and zeros.
  Mat axis_rotation(const Eigen::Vector3d& a, const Term& s, const Term& c) {
    // 1 − cos q, defined once when an off-diagonal entry needs it (an axis off the frame's axes).
    Term one_minus_c = number(0.0);
    if (a.x() * a.y() != 0.0 || a.x() * a.z() != 0.0 || a.y() * a.z() != 0.0)
      one_minus_c = define(c.text + "m", number(1.0) - c);
    Mat r;
    const double cross[3][3] = {{0.0, -a.z(), a.y()}, {a.z(), 0.0, -a.x()}, {-a.y(), a.x(), 0.0}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double aa = a(i) * a(j);
        Term entry = i == j ? number(aa) + number(1.0 - aa) * c
                            : number(aa) * one_minus_c + number(cross[i][j]) * s;
        r[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = entry;
      }
    return r;
  }

  void body_kinematics(const TreeJoint& joint) {
    const auto k = static_cast<std::size_t>(joint.child);
    const auto p = static_cast<std::size_t>(joint.parent);
    const std::string name = "_b" + std::to_string(k) + "_";
    const Term q = atom(joint.coordinate), q_dot = atom(joint.coordinate + "_dot");
    const Mat frame = define(name + "A", product(rotation_[p], numbers(joint.rotation)));
    Vec offset = product(rotation_[p], numbers(joint.translation));
    Vec velocity = velocity_[p];
    if (joint.type == UrdfJointType::kFloating) {
      floating_kinematics(joint, name, frame, offset, velocity);
      return;
    }
    if (joint.type == UrdfJointType::kPlanar) {
      planar_kinematics(joint, name, frame, offset, velocity);
      return;
    }
    const Vec axis = define(name + "a", product(frame, numbers(joint.axis)));
    if (joint.type == UrdfJointType::kPrismatic) {
      rotation_[k] = frame;
      offset = offset + axis * q;
      omega_[k] = omega_[p];
      velocity = velocity + axis * q_dot;
    } else {
      definitions_ << name << "s = " << quoted("sin(" + q.text + ")") << "\n" << name << "c = " << quoted("cos(" + q.text + ")") << "\n";
      rotation_[k] = define(name + "R", product(frame, axis_rotation(joint.axis, atom(name + "s"), atom(name + "c"))));
      omega_[k] = define(name + "w", omega_[p] + axis * q_dot);
    }
    const Vec d = define(name + "d", offset);
    origin_[k] = define(name + "o", origin_[p] + d);
    velocity_[k] = define(name + "v", velocity + cross(omega_[p], d));
  }

  /// A floating joint: the child's origin at p = (x, y, z) in the joint frame, its orientation the
  /// rotation of the quaternion e = (qw, qx, qy, qz) held to unit length by a constraint, written
  /// homogeneously, R(e) = (quadratic form of e) / |e|², and its angular velocity in the joint frame
  /// ω = 2 (ė ⊗ ē)_vec / |e|² = 2 (qw q̇⃗ − q̇w q⃗ + q⃗ × q̇⃗) / |e|² — both exact for any e ≠ 0, so the
  /// midpoints of the variational rules, slightly off the unit sphere, are still rotations.
  /// o = o_p + R_p p_j + A p,  v = v_p + ω_p × (R_p p_j + A p) + A ṗ,  R = A R(e),  ω = ω_p + A ω_e.
  void floating_kinematics(const TreeJoint& joint, const std::string& name, const Mat& frame, Vec offset, Vec velocity) {
    const auto k = static_cast<std::size_t>(joint.child);
    const auto p = static_cast<std::size_t>(joint.parent);
    const std::string c = joint.coordinate;
    const Vec position = {atom(c + "_x"), atom(c + "_y"), atom(c + "_z")};
    const Vec position_dot = {atom(c + "_x_dot"), atom(c + "_y_dot"), atom(c + "_z_dot")};
    const Term w = atom(c + "_qw"), x = atom(c + "_qx"), y = atom(c + "_qy"), z = atom(c + "_qz");
    const Term w_dot = atom(c + "_qw_dot");
    const Vec e = {x, y, z}, e_dot = {atom(c + "_qx_dot"), atom(c + "_qy_dot"), atom(c + "_qz_dot")};
    const Term norm = define(name + "n", w * w + x * x + y * y + z * z);
    const Term two = number(2.0);
    const Mat quadratic = {Vec{w * w + x * x - y * y - z * z, two * (x * y - w * z), two * (x * z + w * y)},
                           Vec{two * (x * y + w * z), w * w - x * x + y * y - z * z, two * (y * z - w * x)},
                           Vec{two * (x * z - w * y), two * (y * z + w * x), w * w - x * x - y * y + z * z}};
    Mat rotation;
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j)
        rotation[i][j] = define(name + "E" + std::to_string(i) + std::to_string(j),
                                Term{operand(quadratic[i][j], 1) + "/" + norm.text, false, 0.0, 1});
    const Vec rate_numerator = e_dot * w + e * (-w_dot) + cross(e, e_dot);
    Vec rate;
    for (std::size_t i = 0; i < 3; ++i)
      rate[i] = Term{operand(number(2.0) * rate_numerator[i], 1) + "/" + norm.text, false, 0.0, 1};
    rate = define(name + "e", rate);
    rotation_[k] = define(name + "R", product(frame, rotation));
    omega_[k] = define(name + "w", omega_[p] + product(frame, rate));
    offset = offset + product(frame, position);
    const Vec d = define(name + "d", offset);
    origin_[k] = define(name + "o", origin_[p] + d);
    velocity_[k] = define(name + "v", velocity + cross(omega_[p], d) + product(frame, position_dot));
  }

  /// A planar joint: the child's origin moved by x e1 + y e2 in the joint frame, then turned by θ
  /// about the axis a through it (e1, e2, a: TreeJoint::plane):
  /// o = o_p + R_p p_j + A (x e1 + y e2),  v = v_p + ω_p × (o − o_p) + A (ẋ e1 + ẏ e2),
  /// R = A Rot(a, θ),  ω = ω_p + A a θ̇.
  void planar_kinematics(const TreeJoint& joint, const std::string& name, const Mat& frame, Vec offset, Vec velocity) {
    const auto k = static_cast<std::size_t>(joint.child);
    const auto p = static_cast<std::size_t>(joint.parent);
    const std::string c = joint.coordinate;
    const Eigen::Matrix3d plane = joint.plane();
    const Vec e1 = numbers(Eigen::Vector3d(plane.col(0))), e2 = numbers(Eigen::Vector3d(plane.col(1)));
    const Vec shift = e1 * atom(c + "_x") + e2 * atom(c + "_y");
    const Vec shift_dot = e1 * atom(c + "_x_dot") + e2 * atom(c + "_y_dot");
    const Vec axis = define(name + "a", product(frame, numbers(joint.axis)));
    definitions_ << name << "s = " << quoted("sin(" + c + "_th)") << "\n" << name << "c = " << quoted("cos(" + c + "_th)") << "\n";
    rotation_[k] = define(name + "R", product(frame, axis_rotation(joint.axis, atom(name + "s"), atom(name + "c"))));
    omega_[k] = define(name + "w", omega_[p] + axis * atom(c + "_th_dot"));
    const Vec d = define(name + "d", offset + product(frame, shift));
    origin_[k] = define(name + "o", origin_[p] + d);
    velocity_[k] = define(name + "v", velocity + cross(omega_[p], d) + product(frame, shift_dot));
  }

  /// Every coordinate of the model, in order.
  std::vector<std::string> all_coordinates() const {
    std::vector<std::string> names;
    for (const TreeJoint& j : tree_.joints)
      for (auto& n : j.coordinates()) names.push_back(std::move(n));
    return names;
  }

  void header(std::ostringstream& out) const {
    std::string name;
    for (const char c : tree_.robot)
      name += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') ? c : '-';
    if (name.empty() || !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) name = "robot-" + name;
    if (name.size() > 64) name.resize(64);
    out << "name = " << quoted(name) << "\ndescription = " << quoted("the URDF robot " + name) << "\ncoordinates = [";
    const std::vector<std::string> names = all_coordinates();
    for (std::size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << quoted(names[i]);
    out << "]\nperiodic = [";
    bool first = true;
    for (const TreeJoint& j : tree_.joints)
      if (j.type == UrdfJointType::kContinuous) {
        out << (first ? "" : ", ") << quoted(j.coordinate);
        first = false;
      }
    out << "]\nparameters = { gravity_x = 0.0, gravity_y = 0.0, gravity_z = -9.81";
    for (const TreeJoint& j : tree_.joints)
      if (actuated(j)) out << ", " << damping(j) << " = " << number(j.damping).text;
    out << " }\n";
  }

  void constraints(std::ostringstream& out) const {
    out << "constraints = [";
    bool first = true;
    for (const TreeJoint& j : tree_.joints) {
      if (j.type == UrdfJointType::kFloating) {
        const std::string& c = j.coordinate;
        out << (first ? "" : ", ")
            << quoted(c + "_qw^2 + " + c + "_qx^2 + " + c + "_qy^2 + " + c + "_qz^2 - 1");  // a unit quaternion
        first = false;
      }
      if (j.mimic < 0) continue;
      const Term target = atom(tree_.joints[static_cast<std::size_t>(j.mimic)].coordinate);
      out << (first ? "" : ", ") << quoted((atom(j.coordinate) - (number(j.mimic_multiplier) * target + number(j.mimic_offset))).text);
      first = false;
    }
    out << "]\n";
  }

  /// A joint with a control and damping: every moving joint but a floating one (DESIGN §12).
  static bool actuated(const TreeJoint& j) { return j.type != UrdfJointType::kFloating; }

  void forces(std::ostringstream& out) const {
    bool any = false;
    for (const TreeJoint& j : tree_.joints) any = any || actuated(j);
    if (!any) return;  // a free body alone: no control, nothing forced
    out << "controls = [";
    bool first = true;
    for (const TreeJoint& j : tree_.joints)
      if (actuated(j))
        for (const auto& u : controls_of(j)) {
          out << (first ? "" : ", ") << quoted(u);
          first = false;
        }
    out << "]\nforces = [";
    first = true;
    for (const TreeJoint& joint : tree_.joints) {
      const std::vector<std::string> coordinates = joint.coordinates();
      const std::vector<std::string> controls = controls_of(joint);
      for (std::size_t i = 0; i < coordinates.size(); ++i, first = false)
        out << (first ? "" : ", ")
            << quoted(actuated(joint) ? (atom(controls[i]) - atom(damping(joint)) * atom(coordinates[i] + "_dot")).text : "0");
    }
    out << "]\n";
  }
  /// The controls of a joint, one per coordinate: u_NAME, or a planar joint's u_NAME_x, u_NAME_y,
  /// u_NAME_th (none for a floating joint).
  static std::vector<std::string> controls_of(const TreeJoint& j) {
    if (!actuated(j)) return {};
    if (j.type != UrdfJointType::kPlanar) return {tree_control_name(j)};
    std::vector<std::string> names;
    for (const auto& c : j.coordinates()) names.push_back("u_" + c);
    return names;
  }
  /// The joint's `<dynamics damping>`, a parameter (settable, sweepable).
  static std::string damping(const TreeJoint& j) { return "damping_" + j.coordinate; }

  /// The symmetries of the joints on the root (the root's other subtrees are not coupled to them),
  /// with the default gravity −z: a revolute or continuous joint about the vertical, in no mimic;
  /// a floating joint's translations across the vertical (P along the joint frame's horizontal axes)
  /// and its rotation about the vertical (L_z), each as the generator of its flow on the seven
  /// coordinates — for the rotation about the unit vector u (the vertical in the joint frame),
  /// ṗ = u × p and ė = ½ (0, u) ⊗ e.
  void symmetries(std::ostringstream& out) const {
    std::vector<bool> mimicked(tree_.joints.size(), false);
    for (const TreeJoint& j : tree_.joints)
      if (j.mimic >= 0) mimicked[static_cast<std::size_t>(j.mimic)] = true;
    const std::size_t n = all_coordinates().size();
    std::vector<std::vector<std::string>> generators;
    std::size_t at = 0;
    for (std::size_t i = 0; i < tree_.joints.size(); at += tree_.joints[i].coordinates().size(), ++i) {
      const TreeJoint& j = tree_.joints[i];
      if (j.parent != 0) continue;
      if (j.type == UrdfJointType::kFloating) {
        const Eigen::Vector3d up = j.rotation.transpose() * Eigen::Vector3d::UnitZ();  // in the joint frame
        // Two horizontal directions of the joint frame: translations along them.
        // The frame's own x and y when its z is vertical (columns Px, Py), else any two.
        const bool upright = std::abs(std::abs(up.z()) - 1.0) <= 1e-12;
        const Eigen::Vector3d a = upright ? Eigen::Vector3d::UnitX() : up.unitOrthogonal();
        const Eigen::Vector3d b = upright ? Eigen::Vector3d::UnitY() : up.cross(a);
        for (const Eigen::Vector3d& t : {a, b}) {
          std::vector<std::string> g(n, "0");
          for (int c = 0; c < 3; ++c) g[at + static_cast<std::size_t>(c)] = number(t(c)).text;
          generators.push_back(std::move(g));
        }
        const std::string& c = j.coordinate;
        const Vec u = numbers(up), p = {atom(c + "_x"), atom(c + "_y"), atom(c + "_z")};
        const Term w = atom(c + "_qw");
        const Vec e = {atom(c + "_qx"), atom(c + "_qy"), atom(c + "_qz")};
        std::vector<std::string> g(n, "0");
        const Vec turn = cross(u, p);
        for (std::size_t k = 0; k < 3; ++k) g[at + k] = turn[k].text;
        // ½ (0, u) ⊗ (w, e) = ½ (−u·e, w u + u × e)
        g[at + 3] = (number(-0.5) * dot(u, e)).text;
        const Vec vector_part = u * w + cross(u, e);
        for (std::size_t k = 0; k < 3; ++k) g[at + 4 + k] = (number(0.5) * vector_part[k]).text;
        generators.push_back(std::move(g));
        continue;
      }
      if (j.type == UrdfJointType::kPlanar) {
        // A horizontal plane (a vertical axis): its two translations, and its rotation about the
        // vertical through the joint's origin, which turns (x, y) with θ: ξ = (−y, x, 1).
        const Eigen::Vector3d axis = j.rotation * j.axis;
        if (std::hypot(axis.x(), axis.y()) > 1e-12) continue;
        for (std::size_t c = 0; c < 2; ++c) {
          std::vector<std::string> g(n, "0");
          g[at + c] = "1";
          generators.push_back(std::move(g));
        }
        std::vector<std::string> g(n, "0");
        g[at] = (-atom(j.coordinate + "_y")).text;
        g[at + 1] = j.coordinate + "_x";
        g[at + 2] = "1";
        generators.push_back(std::move(g));
        continue;
      }
      if (j.type == UrdfJointType::kPrismatic || j.mimic >= 0 || mimicked[i]) continue;
      const Eigen::Vector3d axis = j.rotation * j.axis;
      if (std::hypot(axis.x(), axis.y()) > 1e-12) continue;
      std::vector<std::string> g(n, "0");
      g[at] = "1";
      generators.push_back(std::move(g));
    }
    out << "symmetries = [";
    for (std::size_t k = 0; k < generators.size(); ++k) {
      out << (k ? ", " : "") << "[";
      for (std::size_t c = 0; c < n; ++c) out << (c ? ", " : "") << quoted(generators[k][c]);
      out << "]";
    }
    out << "]\n";
  }

  /// At the zero configuration (a floating joint's quaternion the identity), at rest, mimic joints
  /// on their constraint.
  void initial(std::ostringstream& out) const {
    std::vector<double> q(tree_.joints.size(), 0.0);
    for (std::size_t pass = 0; pass < tree_.joints.size(); ++pass)
      for (std::size_t i = 0; i < q.size(); ++i)
        if (tree_.joints[i].mimic >= 0)
          q[i] = tree_.joints[i].mimic_multiplier * q[static_cast<std::size_t>(tree_.joints[i].mimic)] + tree_.joints[i].mimic_offset;
    out << "\n[initial]\n";
    for (std::size_t i = 0; i < q.size(); ++i) {
      if (tree_.joints[i].type == UrdfJointType::kFloating) out << tree_.joints[i].coordinate << "_qw = 1.0\n";
      else if (q[i] != 0.0) out << tree_.joints[i].coordinate << " = " << number(q[i]).text << "\n";
    }
  }

  /// Each moving body's origin joined to its parent's, and a body with mass to its centre of mass.
  void draw(std::ostringstream& out) const {
    out << "\n[draw]\npoints = { ";
    bool first = true;
    const auto point = [&](const std::string& name, const Vec& v) {
      out << (first ? "" : ", ") << name << " = [" << quoted(v[0].text) << ", " << quoted(v[1].text) << ", "
          << quoted(v[2].text) << "]";
      first = false;
    };
    for (const TreeJoint& j : tree_.joints) point("o" + std::to_string(j.child), origin_[static_cast<std::size_t>(j.child)]);
    for (const TreeJoint& j : tree_.joints)
      if (tree_.bodies[static_cast<std::size_t>(j.child)].inertia.mass > 0.0)
        point("c" + std::to_string(j.child), com_.at(static_cast<std::size_t>(j.child)));
    out << " }\nfixed = { o0 = [0.0, 0.0, 0.0] }\nlinks = [";
    first = true;
    for (const TreeJoint& j : tree_.joints) {
      out << (first ? "" : ", ") << "[\"o" << j.parent << "\", \"o" << j.child << "\"]";
      first = false;
      if (tree_.bodies[static_cast<std::size_t>(j.child)].inertia.mass > 0.0)
        out << ", [\"o" << j.child << "\", \"c" << j.child << "\"]";
    }
    out << "]\n";
  }

  const KinematicTree& tree_;
  std::vector<Mat> rotation_;
  std::vector<Vec> origin_, omega_, velocity_;
  std::map<std::size_t, Vec> com_;
  std::ostringstream definitions_;
};

}  // namespace

std::string tree_model_text(const KinematicTree& tree) { return Writer(tree).write(); }

}  // namespace mechint::multibody
