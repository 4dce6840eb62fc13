"""URDF robots (DESIGN §12, docs/robots.md) against DART 6.12 (Debian's python3-dartpy), an
independent multibody code: its URDF reader, its spatial inertias, its articulated-body forward
dynamics. mechint writes the tree's Lagrangian as expressions and differentiates them; DART
recurses over spatial vectors. Three checks on every robot of examples/robots/:

- the mass matrix, the bias forces (Coriolis, centrifugal and gravity: M q̈ + b = 0) and the
  accelerations at random states, from the Lagrangian kernels the methods step on (the test tool
  tests/tools/model_dynamics.cpp, MECHINT_MODEL_DYNAMICS), to 1e-10 relative;

- the energy at random states: mechint's `energy` column against DART's kinetic energy plus the
  gravity potential of the moving bodies' centres of mass (DART's own potential energy uses the
  body frames' origins, not the centres of mass, so it is not used) — T at random velocities pins
  the whole mass matrix, V the masses and centres of mass;
- the motion: mechint's rk78 at tolerance 1e-12 against a classical RK4 (h = 2.5e-4) on DART's
  forward dynamics, from a random state, to 1e-8.

DART gets a copy of the file without <visual> (it would try to open the meshes) and without
<dynamics> (it applies damping implicitly in its time step, so its accelerations would depend on
the step); mechint runs with its damping parameters set to zero. DART ignores <mimic> as a
constraint, so the motion is compared on robots without it; the energy of the gripper is compared
on states that satisfy its mimic constraint.
"""
import csv
import io
import json
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import SOURCE_DIR

try:
    import dartpy as dart
except ImportError:  # never skipped: ./scripts/install-deps.sh installs it
    pytest.fail("python3-dartpy (Debian) is the oracle of this test: ./scripts/install-deps.sh installs it",
                pytrace=False)

ROBOTS = os.path.join(SOURCE_DIR, "examples", "robots")
GRAVITY = 9.81


def dart_skeleton(path, tmp_path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"<visual>.*?</visual>", "", text, flags=re.S)
    text = re.sub(r"<dynamics[^>]*/>", "", text)
    copy = tmp_path / os.path.basename(path)
    copy.write_text(text)
    options = dart.utils.DartLoaderOptions()
    options.mDefaultRootJointType = dart.utils.DartLoaderRootJointType.FIXED
    loader = dart.utils.DartLoader()
    loader.setOptions(options)
    skeleton = loader.parseSkeleton(str(copy))
    assert skeleton is not None, f"DART could not read {copy}"
    return skeleton


class Dart:
    """DART's skeleton seen in mechint's coordinate order (DART orders the joints of a branching tree
    otherwise): vectors in, vectors and matrices out, permuted by the joints' names."""

    def __init__(self, skeleton, names):
        self.skeleton = skeleton
        dart_names = [skeleton.getDof(i).getName() for i in range(skeleton.getNumDofs())]
        # DART names a planar joint's rotation "default"; mechint NAME_th. Its translations are
        # NAME_x and NAME_y in both, along the same axes (checked).
        for j in range(skeleton.getNumJoints()):
            joint = skeleton.getJoint(j)
            if isinstance(joint, dart.dynamics.PlanarJoint):
                plane = np.column_stack([joint.getTranslationalAxis1(), joint.getTranslationalAxis2()])
                assert np.allclose(plane[:, 0], [1, 0, 0]) and np.allclose(plane[:, 1], [0, 1, 0]), plane
                dart_names[joint.getIndexInSkeleton(2)] = joint.getName() + "_th"
        assert sorted(dart_names) == sorted(names), (dart_names, names)
        self.index = np.array([dart_names.index(name) for name in names])  # ours i -> DART's index[i]

    def set_state(self, q, v):
        n = len(self.index)
        q_dart, v_dart = np.zeros(n), np.zeros(n)
        q_dart[self.index], v_dart[self.index] = q, v
        self.skeleton.setPositions(q_dart)
        self.skeleton.setVelocities(v_dart)

    def vector(self, x):
        return np.asarray(x)[self.index]

    def matrix(self, m):
        return np.asarray(m)[np.ix_(self.index, self.index)]


def mechint_coordinates(mechint, path):
    result = mechint("run", path, "--t-end", "0.01", "--h", "0.01")
    return next(csv.reader(io.StringIO(result.stdout.decode())))[1:]


def robot_of(mechint, path, tmp_path):
    names = [n for n in mechint_coordinates(mechint, path)]
    names = names[:names.index("energy")]
    return Dart(dart_skeleton(path, tmp_path), names), names


def dart_energy(dart_robot, q, v):
    dart_robot.set_state(q, v)
    skeleton = dart_robot.skeleton
    potential = 0.0
    root = skeleton.getRootBodyNode()
    for b in range(skeleton.getNumBodyNodes()):
        body = skeleton.getBodyNode(b)
        if body.getName() == root.getName():
            continue  # fixed to the world: a constant mechint leaves out
        potential += body.getMass() * GRAVITY * body.getCOM()[2]
    return skeleton.computeKineticEnergy() + potential


def rows(output):
    reader = csv.reader(io.StringIO(output.decode()))
    header = next(reader)
    return header, [[float(x) for x in row] for row in reader]


def damping_parameters(skeleton):
    """mechint's damping parameter of every joint with a control: damping_JOINT (one per joint)."""
    names = []
    for j in range(skeleton.getNumJoints()):
        joint = skeleton.getJoint(j)
        if joint.getNumDofs() > 0 and not isinstance(joint, dart.dynamics.FreeJoint):
            names.append(f"damping_{joint.getName()}")
    return names


def settings(names, q, v, skeleton):
    out = []
    for name, x in zip(names, q):
        out += ["--set", f"{name}={x!r}"]
    for name, x in zip(names, v):
        out += ["--set", f"{name}_dot={x!r}"]
    for name in damping_parameters(skeleton):
        out += ["--set", f"{name}=0"]
    return out


def mimic_state(path, names, q, v):
    """q, v moved onto the URDF's mimic constraints (follower = multiplier * leader + offset)."""
    text = open(path, encoding="utf-8").read()
    for joint, body in re.findall(r'<joint name="([^"]+)"(.*?)</joint>', text, flags=re.S):
        m = re.search(r'<mimic joint="([^"]+)"(?: multiplier="([^"]+)")?(?: offset="([^"]+)")?', body)
        if m:
            i, j = names.index(joint), names.index(m.group(1))
            multiplier, offset = float(m.group(2) or 1.0), float(m.group(3) or 0.0)
            q[i] = multiplier * q[j] + offset
            v[i] = multiplier * v[j]
    return q, v


ALL = ["double-pendulum.urdf", "arm7.urdf", "gripper.urdf", "torso.urdf", "mobile-manipulator.urdf"]


@pytest.mark.parametrize("robot", ALL)
def test_energy_at_random_states_is_dart_s(mechint, robot, tmp_path):
    path = os.path.join(ROBOTS, robot)
    dart_robot, names = robot_of(mechint, path, tmp_path)
    rng = np.random.default_rng(12)
    for _ in range(6):
        q = rng.uniform(-0.04 if "gripper" in robot else -2.0, 0.04 if "gripper" in robot else 2.0, len(names))
        v = rng.uniform(-1.5, 1.5, len(names))
        q, v = mimic_state(path, names, q, v)
        result = mechint("run", path, "--t-end", "0.01", "--h", "0.01", *settings(names, q, v, dart_robot.skeleton))
        header, values = rows(result.stdout)
        assert header[1:1 + len(names)] == names
        ours = values[0][header.index("energy")]
        theirs = dart_energy(dart_robot, q, v)
        assert abs(ours - theirs) <= 1e-12 * max(1.0, abs(theirs)), (q, v, ours, theirs)


def dart_acceleration(dart_robot, q, v):
    dart_robot.set_state(q, v)
    dart_robot.skeleton.setForces(np.zeros(len(q)))
    dart_robot.skeleton.computeForwardDynamics()
    return dart_robot.vector(dart_robot.skeleton.getAccelerations())


def dart_rk4(dart_robot, q, v, t_end, h):
    def f(x):
        n = len(x) // 2
        return np.concatenate([x[n:], dart_acceleration(dart_robot, x[:n], x[n:])])

    x = np.concatenate([q, v])
    for _ in range(int(round(t_end / h))):
        k1 = f(x)
        k2 = f(x + 0.5 * h * k1)
        k3 = f(x + 0.5 * h * k2)
        k4 = f(x + h * k3)
        x = x + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x[:len(q)]


@pytest.mark.parametrize("robot", ["double-pendulum.urdf", "arm7.urdf", "torso.urdf", "mobile-manipulator.urdf"])
def test_motion_is_dart_s_forward_dynamics(mechint, robot, tmp_path):
    path = os.path.join(ROBOTS, robot)
    dart_robot, names = robot_of(mechint, path, tmp_path)
    rng = np.random.default_rng(7)
    q = rng.uniform(-1.0, 1.0, len(names))
    v = rng.uniform(-1.0, 1.0, len(names))
    t_end = 0.25
    result = mechint("run", path, "--method", "rk78", "--set", "rtol=1e-12", "--set", "atol=1e-12", "--h", "0.001",
                     "--t-end", repr(t_end), "--output-every", repr(t_end), *settings(names, q, v, dart_robot.skeleton))
    header, values = rows(result.stdout)
    ours = np.array(values[-1][1:1 + len(names)])
    theirs = dart_rk4(dart_robot, q, v, t_end, 2.5e-4)
    wrapped = np.angle(np.exp(1j * (ours - theirs)))  # continuous joints are written in (-pi, pi]
    assert np.max(np.abs(wrapped)) <= 1e-8, (ours, theirs)


def model_dynamics(path, q, v):
    tool = os.environ.get("MECHINT_MODEL_DYNAMICS", "")
    if not tool or not os.access(tool, os.X_OK):
        pytest.fail("MECHINT_MODEL_DYNAMICS does not name the built test tool model_dynamics")
    result = subprocess.run([tool, path, ",".join(repr(x) for x in q), ",".join(repr(x) for x in v)],
                            capture_output=True, timeout=600, env={**os.environ})
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def close(ours, theirs, relative):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    return np.max(np.abs(ours - theirs)) <= relative * max(1.0, np.max(np.abs(theirs)))


@pytest.mark.parametrize("robot", ALL)
def test_mass_matrix_bias_and_accelerations_are_dart_s(mechint, robot, tmp_path):
    path = os.path.join(ROBOTS, robot)
    dart_robot, names = robot_of(mechint, path, tmp_path)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-2.0, 2.0, len(names))
        v = rng.uniform(-2.0, 2.0, len(names))
        ours = model_dynamics(path, q, v)
        assert ours["coordinates"] == names
        dart_robot.set_state(q, v)
        mass = dart_robot.matrix(dart_robot.skeleton.getMassMatrix())
        bias = dart_robot.vector(dart_robot.skeleton.getCoriolisAndGravityForces())
        assert close(ours["mass_matrix"], mass, 1e-10), (q, ours["mass_matrix"], mass)
        assert close(ours["bias"][0], bias, 1e-10), (q, v, ours["bias"], bias)
        assert close(ours["acceleration"][0], dart_acceleration(dart_robot, q, v), 1e-10), (q, v)


def quaternion_rotation(e):
    w, x, y, z = e
    return np.array([[w*w + x*x - y*y - z*z, 2*(x*y - w*z), 2*(x*z + w*y)],
                     [2*(x*y + w*z), w*w - x*x + y*y - z*z, 2*(y*z - w*x)],
                     [2*(x*z - w*y), 2*(y*z + w*x), w*w - x*x - y*y + z*z]])


def quaternion_product(a, b):
    return np.array([a[0]*b[0] - a[1:] @ b[1:], *(a[0]*b[1:] + b[0]*a[1:] + np.cross(a[1:], b[1:]))])


def test_a_floating_tree_is_dart_s(mechint, tmp_path):
    """floating-torso.urdf: the chest on a floating joint (mechint: position and a unit quaternion with
    its constraint; DART: a FreeJoint). At random states on the unit sphere, with the quaternion's
    velocity ė = ½ e ⊗ (0, ω_b) of a random body rate ω_b: mechint's energy against DART's kinetic
    energy plus the centres of mass' gravity potential, to 1e-12."""
    path = os.path.join(ROBOTS, "floating-torso.urdf")
    skeleton = dart_skeleton(path, tmp_path)
    dart_names = [skeleton.getDof(i).getName() for i in range(skeleton.getNumDofs())]
    header = mechint("run", path, "--t-end", "0.01", "--h", "0.01").stdout.decode().splitlines()[0].split(",")
    names = header[1:header.index("energy")]
    joints = [n for n in names if not n.startswith("base_")]
    rng = np.random.default_rng(5)
    for _ in range(6):
        e = rng.normal(size=4)
        e /= np.linalg.norm(e)
        omega_body = rng.uniform(-1.5, 1.5, 3)
        e_dot = 0.5 * quaternion_product(e, np.array([0.0, *omega_body]))
        p, p_dot = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
        q_joints, v_joints = rng.uniform(-1.5, 1.5, len(joints)), rng.uniform(-1.5, 1.5, len(joints))
        values = dict(zip(["base_x", "base_y", "base_z", "base_qw", "base_qx", "base_qy", "base_qz"], [*p, *e]))
        values.update({f"{k}_dot": x for k, x in zip(["base_x", "base_y", "base_z", "base_qw", "base_qx", "base_qy",
                                                       "base_qz"], [*p_dot, *e_dot])})
        values.update(dict(zip(joints, q_joints)))
        values.update({f"{k}_dot": x for k, x in zip(joints, v_joints)})
        args = [a for k, x in values.items() for a in ("--set", f"{k}={x!r}")]
        result = mechint("run", path, "--t-end", "0.01", "--h", "0.01", *args)
        head, rows_ = rows(result.stdout)
        ours = rows_[0][head.index("energy")]
        rotation = quaternion_rotation(e)
        transform = dart.math.Isometry3()
        transform.set_rotation(rotation)
        transform.set_translation(p)
        q_dart, v_dart = np.zeros(len(dart_names)), np.zeros(len(dart_names))
        q_dart[:6] = dart.dynamics.FreeJoint.convertToPositions(transform)
        v_dart[:3], v_dart[3:6] = omega_body, rotation.T @ p_dot
        for name, q, v in zip(joints, q_joints, v_joints):
            q_dart[dart_names.index(name)], v_dart[dart_names.index(name)] = q, v
        skeleton.setPositions(q_dart)
        skeleton.setVelocities(v_dart)
        potential = sum(skeleton.getBodyNode(b).getMass() * GRAVITY * skeleton.getBodyNode(b).getCOM()[2]
                        for b in range(skeleton.getNumBodyNodes()))
        theirs = skeleton.computeKineticEnergy() + potential
        assert abs(ours - theirs) <= 1e-12 * max(1.0, abs(theirs)), (values, ours, theirs)
