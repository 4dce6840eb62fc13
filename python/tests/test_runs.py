"""Runs from Python give the command line's numbers, to the last bit."""

import numpy as np
import pytest

import mechint
from conftest import run_cli


def test_systems_are_the_command_lines():
    listed = run_cli("list").out
    names = mechint.systems()
    assert len(names) >= 14
    for name in names:
        assert f"\n  {name}  " in listed


@pytest.mark.parametrize("name", mechint.systems())
def test_default_run_is_bit_identical_to_the_command_line(name):
    cli = run_cli("run", name)
    assert cli.status == 0, cli.err
    columns, rows = cli.csv()
    traj = mechint.System(name).run()
    assert list(traj.columns) == columns
    assert traj.to_numpy().shape == rows.shape
    # Bit for bit: the CSV writes %.17g, which reads back as the same double.
    assert np.array_equal(traj.to_numpy(), rows), name


@pytest.mark.parametrize("args, kwargs", [
    (("spherical-pendulum", "--set", "coordinates=angles", "--method", "vi-trapezoid", "--t-end", "3"),
     dict(system=dict(coordinates="angles"), run=dict(method="vi-trapezoid", t_end=3))),
    (("three-body", "--method", "rk78", "--set", "rtol=1e-12", "--t-end", "2", "--output-every", "0.1"),
     dict(system={}, run=dict(method="rk78", rtol=1e-12, t_end=2, output_every=0.1))),
    (("spherical-pendulum", "--method", "dae", "--set", "rtol=1e-10", "--set", "atol=1e-12", "--t-end", "2"),
     dict(system={}, run=dict(method="dae", rtol=1e-10, atol=1e-12, t_end=2))),
    (("pendulum-chain", "--set", "links=5", "--set", "th1=0.5", "--h", "0.02", "--t-end", "2"),
     dict(system=dict(links=5, th1=0.5), run=dict(h=0.02, t_end=2))),
    (("cart-pole", "--set", "u1=0.75", "--method", "rk4", "--t-end", "2"),
     dict(system=dict(u1=0.75), run=dict(method="rk4", t_end=2))),
    (("double-pendulum", "--set", "wall=1", "--set", "impact=dtec", "--t-end", "4"),
     dict(system=dict(wall=1), run=dict(impact="dtec", t_end=4))),
])
def test_settings_and_options_as_on_the_command_line(args, kwargs):
    cli = run_cli("run", *args)
    assert cli.status == 0, cli.err
    columns, rows = cli.csv()
    traj = mechint.System(args[0], **kwargs["system"]).run(**kwargs["run"])
    assert list(traj.columns) == columns
    assert np.array_equal(traj.to_numpy(), rows)


def test_controls_over_time_as_with_a_controls_file(tmp_path):
    schedule = tmp_path / "pushes.csv"
    schedule.write_text("t,u1\n0,1.5\n0.25,-0.5\n1.0,0.25\n")
    cli = run_cli("run", "cart-pole", "--controls", str(schedule), "--t-end", "2")
    assert cli.status == 0, cli.err
    _, rows = cli.csv()
    system = mechint.System("cart-pole")
    from_file = system.run(t_end=2, controls=schedule)
    from_dict = system.run(t_end=2, controls={"t": [0, 0.25, 1.0], "u1": [1.5, -0.5, 0.25]})
    assert np.array_equal(from_file.to_numpy(), rows)
    assert np.array_equal(from_dict.to_numpy(), rows)


def test_controls_dict_is_checked_as_a_controls_file_is():
    system = mechint.System("cart-pole")
    bad = [({"t": [0, 0.5, 0.5], "u1": [1, 2, 3]}, "increasing t"),
           ({"t": [0, 1], "u1": [1, float("nan")]}, "not a finite number"),
           ({"t": [0, 1], "u1": [1, 2], "u9": [0, 0]}, "unknown control 'u9'"),
           ({"t": [0, 1], "u1": [1, 2, 3]}, "has 3 values for 2 times"),
           ({"t": [0, 1]}, "no values for control 'u1'"),
           ({"t": [], "u1": []}, "no rows"),
           ({"t": [[0, 1]], "u1": [1, 2]}, "one-dimensional")]
    for controls, message in bad:
        with pytest.raises(ValueError, match=message):
            system.run(t_end=1, controls=controls)
    with pytest.raises(ValueError, match="has no control inputs"):
        mechint.System("kepler").run(t_end=1, controls={"t": [0], "u1": [1]})


def test_model_file_runs_as_on_the_command_line():
    model = f"{mechint_source()}/examples/models/cart-pole.toml"
    cli = run_cli("run", model, "--set", "m=0.5", "--t-end", "2")
    assert cli.status == 0, cli.err
    columns, rows = cli.csv()
    traj = mechint.System(model, m=0.5).run(t_end=2)
    assert list(traj.columns) == columns
    assert np.array_equal(traj.to_numpy(), rows)


def mechint_source():
    from conftest import SOURCE_DIR
    return SOURCE_DIR


def test_trajectory_access():
    traj = mechint.System("harmonic-oscillator").run(h=0.1, t_end=1.0)
    assert len(traj) == 11
    assert traj.t[0] == 0.0 and traj.t[-1] == 1.0
    assert traj["t"].flags["C_CONTIGUOUS"] and traj["energy"].flags["C_CONTIGUOUS"]
    assert "energy" in traj and "nothing" not in traj
    with pytest.raises(KeyError, match="columns: t"):
        traj["nothing"]


def test_to_csv_writes_the_command_lines_bytes(tmp_path):
    cli = run_cli("run", "kepler", "--t-end", "1")
    path = tmp_path / "k.csv"
    mechint.System("kepler").run(t_end=1).to_csv(path)
    assert path.read_text() == cli.out


def test_to_pandas_or_a_clear_import_error():
    traj = mechint.System("harmonic-oscillator").run(h=0.1, t_end=1.0)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            traj.to_pandas()
    else:
        frame = traj.to_pandas()
        assert list(frame.columns) == list(traj.columns)
        assert np.array_equal(frame["energy"].to_numpy(), traj["energy"])


def test_plot_draws_every_column(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    traj = mechint.System("kepler").run(t_end=1)
    ax = traj.plot("x", "y")
    assert [line.get_label() for line in ax.get_lines()] == ["x", "y"]
    assert np.array_equal(ax.get_lines()[0].get_ydata(), traj["x"])


def test_system_description():
    s = mechint.System("pendulum-chain", links=3)
    assert s.name == "pendulum-chain"
    assert s.default_method in s.methods
    assert "th3" in s.parameters and "th4" not in s.parameters
    assert "newton_tol" in s.method_options("vi-midpoint")
    assert mechint.System("cart-pole").controls == ["u1"]
    assert "rk78" in mechint.methods()
    assert "optimal-control" in mechint.experiments()


def test_a_model_files_own_step_as_on_the_command_line(tmp_path):
    text = open(f"{mechint_source()}/examples/models/henon-heiles.toml").read()
    own_step = tmp_path / "own-step.toml"
    assert "\nh = 0.01\n" in text
    own_step.write_text(text.replace("\nh = 0.01\n", "\nh = 0.02\n"))
    cli = run_cli("run", str(own_step))
    assert cli.status == 0, cli.err
    _, rows = cli.csv()
    traj = mechint.System(str(own_step)).run()
    assert len(traj) == 501 and np.array_equal(traj.to_numpy(), rows)
    # A step that does not divide t_end is refused with the same line, naming the file's h.
    bad_step = tmp_path / "bad-step.toml"
    bad_step.write_text(text.replace("\nh = 0.01\n", "\nh = 0.3\n"))
    cli = run_cli("run", str(bad_step))
    assert cli.status == 2
    with pytest.raises(ValueError) as error:
        mechint.System(str(bad_step)).run()
    assert str(error.value) == cli.err.strip().split("mechint: error: ", 1)[1]
    assert str(error.value).startswith("with the model file's h = 0.3: ")
