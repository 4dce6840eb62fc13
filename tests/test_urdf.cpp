// URDF robots (DESIGN §12, docs/robots.md): the reader's refusals, each one located line; the tree's
// Lagrangian against a second formulation written by hand (a compound double pendulum in the plane);
// fixed joints merged by the parallel-axis theorem against the merged inertia computed by hand;
// mimic joints held to round-off; the Noether momentum of a root joint about gravity and its
// balance under damping. DART is the oracle of tests/python_cli/test_urdf_dart.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>

#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/system.hpp"
#include "multibody/kinematic_tree.hpp"
#include "multibody/tree_model_text.hpp"
#include "multibody/urdf_robot.hpp"

namespace {

using namespace mechint::testing;
using mechint::multibody::build_kinematic_tree;
using mechint::multibody::parse_urdf_text;

class Urdf : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1); }
};

std::string robots(const std::string& name) { return std::string(MECHINT_SOURCE_DIR) + "/examples/robots/" + name; }

/// A link with a positive definite inertia.
std::string link(const std::string& name, double mass = 1.0, const std::string& com = "0 0 -0.5") {
  return "<link name=\"" + name + "\"><inertial><origin xyz=\"" + com + "\"/><mass value=\"" + std::to_string(mass) +
         "\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.01\"/></inertial></link>\n";
}
std::string joint(const std::string& name, const std::string& type, const std::string& parent, const std::string& child,
                  const std::string& inside = "<axis xyz=\"0 1 0\"/>") {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent + "\"/><child link=\"" + child +
         "\"/>" + inside + "</joint>\n";
}

struct Refusal {
  const char* what;
  std::string text;
  int line;
  const char* fragment;
};

// Every malformed file is one line FILE:LINE: what, at the element at fault.
TEST_F(Urdf, EveryMalformedFileIsOneLocatedLine) {
  const std::string head = "<robot name=\"r\">\n";
  const std::string base = "<link name=\"base\"/>\n";
  const Refusal cases[] = {
      {"not XML", "<robot name=\"r\">\n<link name=\"a\">\n</robot>\n", 2, "not well-formed XML"},  // the element left open
      {"root element", "<model name=\"r\"/>\n", 1, "not <robot>"},
      {"no link", "<robot name=\"r\">\n</robot>\n", 1, "no <link>"},
      {"duplicate link", head + base + link("a") + link("a") + "</robot>", 4, "a second link named 'a'"},
      {"missing parent", head + base + link("a") + joint("j", "revolute", "nowhere", "a") + "</robot>", 4,
       "parent link 'nowhere' does not exist"},
      {"two parents", head + base + link("a") + joint("j1", "revolute", "base", "a") + joint("j2", "revolute", "base", "a") + "</robot>",
       5, "child of joints 'j1' and 'j2'"},
      {"cycle", head + base + link("a") + link("b") + joint("j1", "revolute", "a", "b") + joint("j2", "revolute", "b", "a") + "</robot>",
       6, "cycle"},
      {"two roots", head + base + link("a") + "</robot>", 3, "both roots"},
      {"zero axis", head + base + link("a") + joint("j", "revolute", "base", "a", "\n<axis xyz=\"0 0 0\"/>") + "</robot>", 5,
       "axis is zero"},
      {"axis of two numbers", head + base + link("a") + joint("j", "revolute", "base", "a", "<axis xyz=\"0 1\"/>") + "</robot>",
       4, "three numbers"},
      {"not a number", head + base + link("a") + joint("j", "revolute", "base", "a", "<origin xyz=\"0 0 one\"/>") + "</robot>",
       4, "not a number"},
      {"not finite", head + base + link("a") + joint("j", "revolute", "base", "a", "<origin xyz=\"0 0 1e999\"/>") + "</robot>",
       4, "not finite"},
      {"inertia not positive definite",
       head + base +
           "<link name=\"a\">\n<inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>"
           "</inertial></link>\n" + joint("j", "revolute", "base", "a") + "</robot>",
       4, "not positive definite"},
      {"massless moving link", head + base + "<link name=\"a\"/>\n" + joint("j", "revolute", "base", "a") + "</robot>", 4,
       "neither it nor any link below it has inertia"},
      {"unknown type", head + base + link("a") + joint("j", "hinge", "base", "a") + "</robot>", 4, "joint type 'hinge'"},
      {"mimic of a planar joint",
       head + base + link("a") + link("b") + joint("p", "planar", "base", "a", "<axis xyz=\"0 0 1\"/>") +
           joint("j", "revolute", "a", "b", "<axis xyz=\"0 1 0\"/>\n<mimic joint=\"p\"/>") + "</robot>",
       7, "several coordinates"},
      {"mimic of nothing",
       head + base + link("a") + joint("j", "revolute", "base", "a", "<axis xyz=\"0 1 0\"/>\n<mimic joint=\"k\"/>") + "</robot>", 5,
       "no joint of the robot"},
      {"nothing moves", head + base + link("a") + joint("j", "fixed", "base", "a") + "</robot>", 2, "no moving joint"},
      {"zero mass", head + base + "<link name=\"a\"><inertial>\n<mass value=\"0\"/></inertial></link>\n</robot>", 4,
       "is zero"},
      {"negative mass", head + base + "<link name=\"a\"><inertial>\n<mass value=\"-1\"/></inertial></link>\n</robot>", 4,
       "negative"},
  };
  for (const Refusal& c : cases) {
    try {
      build_kinematic_tree(parse_urdf_text(c.text, "robots/r.urdf"));
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const mechint::InvalidInput& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("robots/r.urdf:" + std::to_string(c.line) + ": ", 0), 0u) << c.what << ": " << message;
      EXPECT_NE(message.find(c.fragment), std::string::npos) << c.what << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << c.what;
    }
  }
}

// Joint names become coordinate names of the model-file grammar, unchanged when they are ones.
TEST_F(Urdf, JointNamesBecomeCoordinateNames) {
  const std::string text = "<robot name=\"r\"><link name=\"base\"/>" + link("a") + link("b") + link("c") + link("d") +
                           joint("joint-1", "revolute", "base", "a") + joint("energy", "revolute", "a", "b") +
                           joint("u_x", "revolute", "b", "c") + joint("elbow", "prismatic", "c", "d") + "</robot>";
  const auto tree = build_kinematic_tree(parse_urdf_text(text, "r.urdf"));
  ASSERT_EQ(tree.joints.size(), 4u);
  EXPECT_EQ(tree.joints[0].coordinate, "joint_1");
  EXPECT_EQ(tree.joints[1].coordinate, "energy_2");  // an output column
  EXPECT_EQ(tree.joints[2].coordinate, "ju_x");      // a control's prefix
  EXPECT_EQ(tree.joints[3].coordinate, "elbow");
}

/// The compound double pendulum of examples/robots/double-pendulum.urdf written by hand in its two
/// angles: rods of length 1 and mass 1 swinging in the x-z plane about y, centres of mass at their
/// middles, inertia 1/12 about them.
constexpr const char* kHandWrittenDoublePendulum = R"toml(name = "double-pendulum-by-hand"
coordinates = ["shoulder", "elbow"]
parameters = { g = 9.81, I = 0.083333333333333329 }
lagrangian = "0.5*(x1_dot^2 + z1_dot^2 + x2_dot^2 + z2_dot^2) + 0.5*I*(shoulder_dot^2 + (shoulder_dot + elbow_dot)^2) - g*(z1 + z2)"
[definitions]
x1 = "-0.5*sin(shoulder)"
z1 = "-0.5*cos(shoulder)"
x2 = "-sin(shoulder) - 0.5*sin(shoulder + elbow)"
z2 = "-cos(shoulder) - 0.5*cos(shoulder + elbow)"
)toml";

TEST_F(Urdf, TheTreesLagrangianIsTheHandWrittenOne) {
  const std::string by_hand = write_harness_file("urdf", "double-pendulum-by-hand.toml", kHandWrittenDoublePendulum);
  const mechint::Settings start = {{"shoulder", 0.7}, {"elbow", -0.3}, {"shoulder_dot", 0.2}};
  for (const char* method : {"vi-midpoint", "vi-gauss4", "rk78"}) {
    const mechint::RunOptions options{.method = method, .h = 0.01, .t_end = 2.0};
    const auto urdf = mechint::System::open(robots("double-pendulum.urdf"), start).run(options);
    const auto hand = mechint::System::open(by_hand, start).run(options);
    ASSERT_EQ(urdf.rows(), hand.rows()) << method;
    for (const char* column : {"shoulder", "elbow", "energy"})
      for (std::size_t i = 0; i < urdf.rows(); ++i)
        ASSERT_NEAR(urdf[column][i], hand[column][i], 1e-10) << method << " " << column << " row " << i;
  }
}

// A link cut in two by a fixed joint is the link whole: two bodies of mass 1 with centres 0.25 apart
// along z and inertias diag(0.1, 0.1, 0.01) about them are one of mass 2, centre between them and
// inertia diag(0.1 + 0.1 + 2·0.125², same, 0.02) (parallel axes).
// With the weld tilted (rpy 0.3, -0.2, 1.1), b's inertia turns with it: R diag(0.1, 0.1, 0.01) Rᵀ.
TEST_F(Urdf, FixedJointsMergeByTheParallelAxisTheorem) {
  const std::string head = "<robot name=\"r\"><link name=\"base\"/>";
  const std::string cut = head + link("a", 1.0, "0 0 -0.25") + link("b", 1.0, "0 0 0") +
                          joint("hinge", "revolute", "base", "a", "<axis xyz=\"0.6 0.8 0\"/>") +
                          joint("weld", "fixed", "a", "b", "<origin xyz=\"0 0 -0.5\" rpy=\"0.3 -0.2 1.1\"/>") + "</robot>";
  const double i = 0.1 + 0.1 + 2.0 * 0.125 * 0.125;
  const std::string whole =
      head + "<link name=\"a\"><inertial><origin xyz=\"0 0 -0.375\"/><mass value=\"2\"/><inertia ixx=\"" + std::to_string(i) +
      "\" ixy=\"0\" ixz=\"0\" iyy=\"" + std::to_string(i) + "\" iyz=\"0\" izz=\"0.02\"/></inertial></link>" +
      joint("hinge", "revolute", "base", "a", "<axis xyz=\"0.6 0.8 0\"/>") + "</robot>";
  // First with the weld turned about z only (b's inertia is symmetric about z: unchanged by it).
  const std::string cut_aligned = head + link("a", 1.0, "0 0 -0.25") + link("b", 1.0, "0 0 0") +
                                  joint("hinge", "revolute", "base", "a", "<axis xyz=\"0.6 0.8 0\"/>") +
                                  joint("weld", "fixed", "a", "b", "<origin xyz=\"0 0 -0.5\" rpy=\"0 0 1.1\"/>") + "</robot>";
  const auto merged = build_kinematic_tree(parse_urdf_text(cut_aligned, "cut.urdf"));
  ASSERT_EQ(merged.bodies.size(), 2u);
  const auto& body = merged.bodies[1].inertia;
  EXPECT_DOUBLE_EQ(body.mass, 2.0);
  EXPECT_NEAR(body.com.z(), -0.375, 1e-15);
  Eigen::Matrix3d expected = Eigen::Vector3d(i, i, 0.02).asDiagonal();
  EXPECT_LE((body.inertia - expected).cwiseAbs().maxCoeff(), 1e-15) << body.inertia;
  // With the tilted weld, b's inertia turns with it: R diag(0.1, 0.1, 0.01) Rᵀ.
  const auto tilted = build_kinematic_tree(parse_urdf_text(cut, "cut.urdf"));
  const Eigen::Matrix3d r = mechint::multibody::rotation_from_rpy({0.3, -0.2, 1.1});
  const Eigen::Matrix3d b_inertia = r * Eigen::Vector3d(0.1, 0.1, 0.01).asDiagonal() * r.transpose();
  const Eigen::Matrix3d tilted_expected = Eigen::Matrix3d(Eigen::Vector3d(0.1, 0.1, 0.01).asDiagonal()) + b_inertia +
                                          Eigen::Matrix3d(Eigen::Vector3d(0.03125, 0.03125, 0.0).asDiagonal());
  EXPECT_LE((tilted.bodies[1].inertia.inertia - tilted_expected).cwiseAbs().maxCoeff(), 1e-15);
  // And the motion of the two files is one.
  const std::string cut_file = write_harness_file("urdf", "cut.urdf", cut_aligned);
  const std::string whole_file = write_harness_file("urdf", "whole.urdf", whole);
  const mechint::RunOptions options{.method = "vi-midpoint", .h = 0.01, .t_end = 1.0};
  const auto a = mechint::System::open(cut_file, {{"hinge", 1.0}}).run(options);
  const auto b = mechint::System::open(whole_file, {{"hinge", 1.0}}).run(options);
  for (std::size_t k = 0; k < a.rows(); ++k) ASSERT_NEAR(a["hinge"][k], b["hinge"][k], 1e-12) << k;
}

// The gripper's right finger mimics the left: the constraint holds to round-off while a force on the
// left finger and the wrist's spin move both.
TEST_F(Urdf, MimicJointsFollowExactly) {
  const auto tr = mechint::System::open(robots("gripper.urdf"), {{"left_finger_joint", 0.01},
                                                                  {"right_finger_joint", -0.01},
                                                                  {"wrist_dot", 2.0},
                                                                  {"u_left_finger_joint", 0.3}})
                      .run({.method = "vi-midpoint", .h = 0.001, .t_end = 0.2});
  double moved = 0.0;
  for (std::size_t k = 0; k < tr.rows(); ++k) {
    EXPECT_LE(std::abs(tr["constraint_residual"][k]), 1e-13) << k;
    EXPECT_NEAR(tr["right_finger_joint"][k], -tr["left_finger_joint"][k], 1e-13) << k;
    moved = std::max(moved, std::abs(tr["left_finger_joint"][k] - 0.01));
  }
  EXPECT_GT(moved, 1e-3);
}

// joint1 of the arm turns about gravity at the root: its Noether momentum J1 is conserved by the
// variational integrator to round-off without damping, and changes by exactly the discrete work of
// the damping with it (J1 − J1_work constant).
TEST_F(Urdf, ARootJointAboutGravityKeepsItsMomentum) {
  mechint::Settings start = {{"joint2", 0.6}, {"joint4", -1.0}, {"joint1_dot", 1.0}, {"joint3_dot", -0.5}};
  const mechint::RunOptions options{.method = "vi-midpoint", .h = 0.005, .t_end = 1.0};
  const auto damped = mechint::System::open(robots("arm7.urdf"), start).run(options);
  for (const auto& name : {"joint1", "joint2", "joint3", "joint4", "joint5", "joint6", "joint7"})
    start.insert_or_assign(std::string("damping_") + name, 0.0);
  const auto free = mechint::System::open(robots("arm7.urdf"), start).run(options);
  const double j0 = free["J1"][0];
  double changed = 0.0;
  for (std::size_t k = 0; k < free.rows(); ++k) {
    EXPECT_NEAR(free["J1"][k], j0, 1e-12 * std::abs(j0)) << k;
    EXPECT_NEAR(damped["J1"][k] - damped["J1_work"][k], damped["J1"][0], 1e-12) << k;
    changed = std::max(changed, std::abs(damped["J1"][k] - j0));
  }
  EXPECT_GT(changed, 1e-3);  // the damping did change it
}

// optimize on a URDF: the torques are bounded by the joints' <limit effort> (4 and 6 N m in
// examples/robots/two-link-arm.urdf), which the swing-up in 3 s needs to the full: the bounds are
// reached and never passed; the arm ends upright at rest (the goal, to the solver's tolerance).
TEST_F(Urdf, OptimizeBoundsTheTorquesByTheirEffortLimits) {
  const mechint::OptimalControlResult result =
      mechint::optimize(std::string(MECHINT_SOURCE_DIR) + "/examples/problems/two-link-arm-swing-up.toml");
  ASSERT_EQ(result.status, "Solve_Succeeded");
  for (const auto& [control, effort] : {std::pair{"u_shoulder", 4.0}, std::pair{"u_elbow", 6.0}}) {
    double largest = 0.0;
    for (const double u : result.controls[control]) largest = std::max(largest, std::abs(u));
    EXPECT_LE(largest, effort * (1.0 + 1e-8)) << control;
    EXPECT_GE(largest, effort * (1.0 - 1e-6)) << control << ": the bound does not bind";
  }
  const std::size_t last = result.trajectory.rows() - 1;
  EXPECT_NEAR(result.trajectory["shoulder"][last], M_PI, 1e-8);
  EXPECT_NEAR(result.trajectory["elbow"][last], 0.0, 1e-8);
}

// The methods keep their orders on a robot: the arm without damping, from a deflected, moving
// start, to t = 0.5 against rk78 at 1e-13 (a reference integration of the same Euler–Lagrange ODE);
// the errors of vi-midpoint and vi-trapezoid fall as h², vi-gauss4's as h⁴.
TEST_F(Urdf, TheMethodsKeepTheirOrdersOnARobot) {
  mechint::Settings start = {{"joint2", 0.6}, {"joint4", -1.0}, {"joint1_dot", 1.0}, {"joint6_dot", -0.7}};
  for (const auto& name : {"joint1", "joint2", "joint3", "joint4", "joint5", "joint6", "joint7"})
    start.insert_or_assign(std::string("damping_") + name, 0.0);
  const mechint::System arm = mechint::System::open(robots("arm7.urdf"), start);
  const double t_end = 0.5;
  mechint::Settings tight = {{"rtol", 1e-13}, {"atol", 1e-13}};
  const auto reference = arm.run({.method = "rk78", .h = 0.001, .t_end = t_end, .output_every = t_end, .options = tight});
  const auto error = [&](const std::string& method, double h) {
    const auto tr = arm.run({.method = method, .h = h, .t_end = t_end, .output_every = t_end});
    double largest = 0.0;
    for (int k = 1; k <= 7; ++k) {
      const std::string column = "joint" + std::to_string(k);
      largest = std::max(largest, std::abs(tr[column].back() - reference[column].back()));
    }
    return largest;
  };
  for (const auto& [method, order, h] : {std::tuple{"vi-midpoint", 2.0, 0.01}, std::tuple{"vi-trapezoid", 2.0, 0.01},
                                         std::tuple{"vi-gauss4", 4.0, 0.02}}) {
    const double coarse = error(method, h), fine = error(method, h / 2);
    const double observed = std::log2(coarse / fine);
    EXPECT_NEAR(observed, order, 0.2) << method << ": errors " << coarse << ", " << fine;
  }
}

// A floating tree (examples/robots/floating-torso.urdf: the chest on a floating joint, a quaternion held
// to unit length by its constraint). Without gravity its momenta along the frame's x and y and about
// the vertical (J1, J2, J3) are the discrete Noether momenta of vi-midpoint: conserved to round-off
// while its arms and neck move it, the quaternion on the unit sphere to round-off. In gravity it
// falls freely: every body by −g t²/2, which the midpoint rule's discrete equations give exactly.
TEST_F(Urdf, AFloatingTreeKeepsItsMomentaAndFallsFreely) {
  const mechint::Settings moving = {{"gravity_z", 0.0},        {"base_qx_dot", 0.3}, {"base_x_dot", 0.5},
                                    {"left_shoulder_dot", 2.0}, {"neck_dot", 0.1},    {"right_elbow_dot", -1.0}};
  const auto free = mechint::System::open(robots("floating-torso.urdf"), moving)
                        .run({.method = "vi-midpoint", .h = 0.005, .t_end = 2.0});
  // Relative to the size of the momenta (the largest is about 10): each step conserves them up to
  // its Newton residual and round-off.
  const double size = std::max({std::abs(free["J1"][0]), std::abs(free["J2"][0]), std::abs(free["J3"][0])});
  for (const char* momentum : {"J1", "J2", "J3"}) {
    const double start = free[momentum][0];
    for (std::size_t k = 0; k < free.rows(); ++k)
      ASSERT_NEAR(free[momentum][k], start, 1e-12 * size) << momentum << " row " << k;
  }
  double turned = 0.0;
  for (std::size_t k = 0; k < free.rows(); ++k) {
    const double norm = std::hypot(std::hypot(free["base_qw"][k], free["base_qx"][k]),
                                   std::hypot(free["base_qy"][k], free["base_qz"][k]));
    ASSERT_NEAR(norm, 1.0, 1e-13) << k;
    turned = std::max(turned, std::abs(free["base_qx"][k]));
  }
  EXPECT_GT(turned, 0.1);
  const auto falling = mechint::System::open(robots("floating-torso.urdf"), {}).run({.method = "vi-midpoint", .h = 0.01, .t_end = 1.0});
  for (std::size_t k = 0; k < falling.rows(); ++k) {
    const double t = falling["t"][k];
    ASSERT_NEAR(falling["base_z"][k], -0.5 * 9.81 * t * t, 1e-12) << k;
    ASSERT_NEAR(falling["left_shoulder"][k], 0.0, 1e-13) << k;
  }
}

// --set root=floating frees the root link (DESIGN §12): the arm's base floats on a floating joint
// named after it; without gravity, with its damped joints moving, the base's momenta are conserved
// (internal damping moves no momentum) and the energy only falls.
TEST_F(Urdf, RootFloatingFreesTheBase) {
  const auto tr = mechint::System::open(robots("arm7.urdf"), {{"root", "floating"}, {"gravity_z", 0.0},
                                                              {"base_qx_dot", 0.2}, {"joint2_dot", 1.0}})
                      .run({.method = "vi-midpoint", .h = 0.005, .t_end = 1.0});
  const double size = std::max({std::abs(tr["J1"][0]), std::abs(tr["J2"][0]), std::abs(tr["J3"][0])});
  for (const char* momentum : {"J1", "J2", "J3"})
    for (std::size_t k = 0; k < tr.rows(); ++k) ASSERT_NEAR(tr[momentum][k], tr[momentum][0], 1e-12 * size) << momentum;
  EXPECT_LT(tr["energy"].back(), tr["energy"][0]);
  EXPECT_GT(std::abs(tr["base_qy"].back()), 0.01);  // the base turned
  try {
    mechint::System::open(robots("arm7.urdf"), {{"root", "wobbly"}}).run({.t_end = 0.01});
    ADD_FAILURE() << "root=wobbly accepted";
  } catch (const mechint::Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
  }
}

// A robot draws itself in 3D on an animated page: each body's origin joined to its parent's and to
// its centre of mass (the [draw] of the model written from the tree).
TEST_F(Urdf, ARobotDrawsItselfIn3D) {
  std::filesystem::create_directories(harness_directory() / "urdf");  // ctest runs each test alone
  const auto page = harness_directory() / "urdf" / "arm.html";
  const CliResult r = run_mechint("run " + robots("arm7.urdf") + " --set joint2=0.5 --t-end 0.2 --animate " + page.string() +
                                  " --out " + (harness_directory() / "urdf" / "arm.csv").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("\"dimension\":3"), std::string::npos);
  EXPECT_NE(html.find("\"o7\""), std::string::npos);  // the last body (link7, the tool merged into it)
  EXPECT_NE(html.find("\"c7\""), std::string::npos);  // and its centre of mass
}

// `mechint check robot.urdf` prints the tree before the model.
TEST_F(Urdf, CheckPrintsTheTree) {
  const CliResult r = run_mechint("check " + robots("arm7.urdf"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("robot arm7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("joint joint7 (revolute, coordinate joint7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merged by fixed joints: tool into link7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("coordinates (7)"), std::string::npos) << r.out;
  const CliResult bad = run_mechint("run " + write_harness_file("urdf", "bad.urdf", "<robot name=\"r\">\n<link/>\n</robot>\n") +
                                    " --out " + (harness_directory() / "urdf" / "bad.csv").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.urdf:2: <link> without a name"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(harness_directory() / "urdf" / "bad.csv"));  // nothing written
  // A file beyond the limit of input files (1 MiB) is refused before it is parsed.
  const CliResult huge = run_mechint("check " + write_harness_file("urdf", "huge.urdf", "<robot name=\"r\">" +
                                                                    std::string(2 << 20, ' ') + "</robot>"));
  EXPECT_EQ(huge.status, 2);
  EXPECT_NE(huge.err.find("larger than the limit"), std::string::npos) << huge.err;
}

}  // namespace
