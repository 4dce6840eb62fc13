"""URDF robots from Python (docs/robots.md): mechint.System takes a .urdf as it takes a model file,
and its runs are the command line's, to the last bit; its names are the joints'."""

import os

import numpy as np

import mechint
from conftest import SOURCE_DIR, run_cli

ARM = os.path.join(SOURCE_DIR, "examples", "robots", "arm7.urdf")
GRIPPER = os.path.join(SOURCE_DIR, "examples", "robots", "gripper.urdf")


def test_a_robot_runs_as_on_the_command_line():
    cli = run_cli("run", ARM, "--set", "joint2=0.5", "--set", "joint4_dot=1", "--method", "vi-gauss4",
                  "--t-end", "0.5")
    assert cli.status == 0, cli.err
    columns, rows = cli.csv()
    traj = mechint.System(ARM, joint2=0.5, joint4_dot=1.0).run(method="vi-gauss4", t_end=0.5)
    assert list(traj.columns) == columns
    assert np.array_equal(traj.to_numpy(), rows)


def test_a_robots_settings_are_its_joints():
    system = mechint.System(GRIPPER)
    names = system.parameters
    for name in ("wrist", "left_finger_joint", "right_finger_joint", "wrist_dot", "gravity_z",
                 "damping_wrist"):
        assert name in names, names
    assert system.controls == ["u_wrist", "u_left_finger_joint", "u_right_finger_joint"]
