"""Which settable names are initial values: every system describes them as "initial ..." (or names
a start, `start`). `mechint optimize` relies on it to refuse an initial value given in a problem's
[parameters], where it would be ignored ([start] sets the start of an optimal control problem)."""

import numpy as np
import pytest

import mechint


def _is_initial(name, spec):
    return name == "start" or spec["description"].startswith("initial")


def _changed(spec):
    """A different value of a real setting, inside its range."""
    value = float(spec["default"])
    return value + 0.125 if value == 0.0 else value * 1.125


def _first_row(system, names):
    traj = system.run(h=0.001, t_end=0.001)
    return traj.to_numpy()[0, [list(traj.columns).index(n) for n in names]]


def _settable_columns(system):
    """The columns of the first row that are also settable names: the coordinates (and a velocity or
    momentum a system writes) its initial values set directly; derived ones (a z from a constraint, a
    nonholonomic system's velocities from its speeds) are left out."""
    traj = system.run(h=0.001, t_end=0.001)
    return [c for c in traj.columns if c in system.parameters and c not in system.controls]


@pytest.mark.parametrize("name", mechint.systems())
def test_initial_values_move_the_start_and_nothing_else_does(name):
    default = mechint.System(name)
    parameters = default.parameters
    coordinates = _settable_columns(default)
    start = _first_row(default, coordinates)
    initial = {n: s for n, s in parameters.items() if _is_initial(n, s)}
    assert initial and coordinates, f"{name} has no initial values"
    pinned = {n: s["default"] for n, s in initial.items() if n != "start" and s["kind"] == "real"}
    for n, s in parameters.items():
        if s["kind"] != "real" or n == "start":
            continue
        try:
            moved = _first_row(mechint.System(name, **{**pinned, n: _changed(s)}), coordinates)
        except ValueError:
            continue  # refused: e.g. a start off a constraint once a length changed
        if n in initial:
            # An initial value: its own run starts elsewhere (a velocity moves the energy column).
            other = mechint.System(name, **{n: _changed(s)}).run(h=0.001, t_end=0.001).to_numpy()[0]
            assert not np.array_equal(other, default.run(h=0.001, t_end=0.001).to_numpy()[0]), (name, n)
        else:
            # A parameter of the model, the initial values held: the start does not move.
            assert np.array_equal(moved, start), (name, n, moved, start)
