"""mechint.optimize (DMOC) and mechint.reproduce, as their commands."""

import json
import os

import numpy as np
import pytest

import mechint
from conftest import SOURCE_DIR, cli_error_line, run_cli

SWING_UP = {
    "model": "pendulum",
    "horizon": 3.0,
    "steps": 40,
    "start": {"th": 0.0},
    "goal": {"th": 3.141592653589793, "th_dot": 0.0},
}


def write_problem(path, problem):
    path.write_text(mechint._mechint._toml_text(problem))
    return path


@pytest.fixture(scope="module")
def pendulum_problem():
    # The built-in damped pendulum with no damping is the pendulum of the swing-up.
    problem = dict(SWING_UP, model="damped-pendulum", parameters={"c": 0.0})
    return problem


def test_optimize_a_dict_as_the_command_does_a_file(tmp_path, pendulum_problem):
    problem_file = write_problem(tmp_path / "swing-up.toml", pendulum_problem)
    cli = run_cli("optimize", str(problem_file))
    assert cli.status == 0, cli.err
    expected = json.loads(cli.out)
    result = mechint.optimize(pendulum_problem)
    assert result.results["status"] == expected["status"]
    assert result.cost == expected["cost"]
    assert result.q.shape == (41, 1) and result.u.shape == (40, 1)
    assert result.q[0, 0] == 0.0 and abs(result.q[-1, 0] - np.pi) < 1e-8
    from_file = mechint.optimize(problem_file)
    assert from_file.cost == result.cost


def test_optimal_controls_replayed_by_run_reach_the_goal(pendulum_problem):
    result = mechint.optimize(pendulum_problem)
    h = result.results["h"]
    traj = mechint.System("damped-pendulum", c=0.0, th=0.0, dth=0.0).run(
        method="vi-midpoint", h=h, t_end=3.0, controls={"t": result.t[:-1], "u1": result.u[:, 0]})
    # th is written wrapped to (-pi, pi]: upright is +-pi.
    assert abs(np.remainder(traj["th"][-1], 2 * np.pi) - np.pi) < 1e-7


def test_a_galerkin_rules_controls_replayed_by_its_integrator_reach_the_goal(pendulum_problem):
    result = mechint.optimize(dict(pendulum_problem, method="vi-gauss6"))
    assert result.results["method"] == "vi-gauss6"
    h = result.results["h"]
    traj = mechint.System("damped-pendulum", c=0.0, th=0.0, dth=0.0).run(
        method="vi-gauss6", h=h, t_end=3.0, controls={"t": result.t[:-1], "u1": result.u[:, 0]})
    for k in range(len(result.t)):
        assert abs(np.remainder(traj["th"][k] - result.q[k, 0] + np.pi, 2 * np.pi) - np.pi) < 1e-7


def test_optimize_writes_the_commands_files(tmp_path, pendulum_problem):
    mechint.optimize(pendulum_problem, out=tmp_path / "out")
    for name in ("trajectory.csv", "controls.csv", "results.json", "report.md"):
        assert (tmp_path / "out" / name).is_file()


def test_optimize_out_names_reach_no_shell(tmp_path, pendulum_problem, monkeypatch):
    # Figures were drawn by a command string: a quote in the directory name ran the rest.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MECHINT_PLOTS_DIR", os.path.join(SOURCE_DIR, "scripts", "plots"))
    for name in ("o'$(touch INJECTED1)'x", 'o"$(touch INJECTED2)"x', "a;touch INJECTED3"):
        mechint.optimize(dict(pendulum_problem, steps=20), out=tmp_path / name)
        assert (tmp_path / name / "results.json").is_file()
    assert not list(tmp_path.rglob("INJECTED*"))


def test_optimize_errors(tmp_path, pendulum_problem):
    bad = dict(pendulum_problem, steps=1)
    cli = run_cli("optimize", str(write_problem(tmp_path / "bad.toml", bad)))
    assert cli.status == 2
    with pytest.raises(ValueError) as error:
        mechint.optimize(bad)
    assert "steps" in str(error.value)
    unreachable = dict(pendulum_problem, bounds={"u1": [-0.01, 0.01]}, solver={"max_iterations": 30})
    with pytest.raises(mechint.NumericalFailure):
        mechint.optimize(unreachable)


def test_reproduce_an_experiment(tmp_path):
    mechint.reproduce("damped-systems", tmp_path / "damped")
    assert (tmp_path / "damped" / ".mechint-reproduce").read_text() == "damped-systems\n"
    assert any(name.endswith(".csv") for name in os.listdir(tmp_path / "damped"))
    with pytest.raises(ValueError) as error:
        mechint.reproduce("no-such-experiment", tmp_path / "x")
    assert str(error.value) == cli_error_line(run_cli("reproduce", "no-such-experiment", "--out", str(tmp_path / "y")))


def test_check_describes_a_model_file():
    text = mechint.check(os.path.join(SOURCE_DIR, "examples", "models", "cart-pole.toml"))
    assert "coordinates (2): x, th" in text
