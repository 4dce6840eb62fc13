#pragma once
/// \file
/// A kinematic tree as a model file (DESIGN §6, §12): the tree's Lagrangian L(q, q̇) written in the
/// model-file grammar from its kinematics, so that the one engine's model-file backend gives it
/// every method, its exact derivatives (the expression graph's), the start checks, sweeps,
/// optimize, Python and the pages. Each body's world rotation, origin, angular velocity and origin
/// velocity are definitions built from its parent's (the forward recursion of the recursive
/// Newton–Euler algorithm, Featherstone ch. 5, written as expressions), so the text and the graph
/// are linear in the number of bodies:
///
///   R_k = R_p R_j Rot(a, q)            (revolute: Rodrigues, Rot = cos q I + sin q [a]x + (1 − cos q) a aᵀ)
///   d_k = R_p p_j (+ R_p R_j a q)      (prismatic)          o_k = o_p + d_k
///   ω_k = ω_p + R_p R_j a q̇ (revolute) v_k = v_p + ω_p × d_k (+ R_p R_j a q̇, prismatic)
///   T_k = ½ m |v_k + ω_k × R_k c|² + ½ (R_kᵀ ω_k)ᵀ I_c (R_kᵀ ω_k),   V_k = −m g · (o_k + R_k c)
///
/// with (R_j, p_j) the joint frame in the parent body's frame, a the unit axis, c and I_c the body's
/// centre of mass and inertia about it in its frame. Mimic joints are the constraints
/// q = multiplier · q_joint + offset; damping the forces −d q̇
/// (d the parameter damping_NAME, the URDF's value by default); every moving joint has a control
/// u_NAME. A revolute joint on the root whose axis is along gravity gives the Noether momentum of
/// its rotation (when no mimic involves it).

#include <string>

#include "multibody/kinematic_tree.hpp"

namespace mechint::multibody {

/// The model-file text of the tree (a TOML document the model-file reader accepts).
std::string tree_model_text(const KinematicTree& tree);

/// The name of a joint's control in that text: u_NAME.
inline std::string tree_control_name(const TreeJoint& j) { return "u_" + j.coordinate; }

}  // namespace mechint::multibody
