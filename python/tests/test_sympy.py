"""Model.from_sympy: a SymPy Lagrangian compiled like a model file, checked against the built-in."""

import re

import numpy as np
import pytest
import sympy
from sympy.physics.mechanics import dynamicsymbols

import mechint


def double_pendulum_lagrangian(th1, th2, w1, w2):
    """004's double pendulum, built from the positions of the two masses (not copied from a file)."""
    m1, m2, l1, l2, g = sympy.symbols("m1 m2 l1 l2 g")
    x1, y1 = l1 * sympy.sin(th1), -l1 * sympy.cos(th1)
    x2, y2 = x1 + l2 * sympy.sin(th1 + th2), y1 - l2 * sympy.cos(th1 + th2)
    q = [th1, th2]
    velocity = lambda f: sum(sympy.diff(f, qi) * wi for qi, wi in zip(q, [w1, w2]))  # noqa: E731
    kinetic = m1 * (velocity(x1) ** 2 + velocity(y1) ** 2) / 2 + m2 * (velocity(x2) ** 2 + velocity(y2) ** 2) / 2
    # Heights from the hanging position, as the built-in measures its potential.
    potential = m1 * g * (y1 + l1) + m2 * g * (y2 + l1 + l2)
    wall = x2 + sympy.Symbol("wall_offset")
    return sympy.simplify(kinetic - potential), wall, (m1, m2, l1, l2, g)


def builtin_start():
    """The built-in's start (th, p) and its velocities M(th)^-1 p, from the SymPy mass matrix."""
    system = mechint.System("double-pendulum", wall=1)
    p = system.parameters
    th = [float(p["th1"]["default"]), float(p["th2"]["default"])]
    momenta = [float(p["p1"]["default"]), float(p["p2"]["default"])]
    th1, th2, w1, w2 = sympy.symbols("th1 th2 th1_dot th2_dot")
    lagrangian, _, (m1, m2, l1, l2, g) = double_pendulum_lagrangian(th1, th2, w1, w2)
    mass = sympy.hessian(lagrangian, [w1, w2]).subs({m1: 1, m2: 1, l1: 1, l2: 1, th1: th[0], th2: th[1]})
    velocity = np.linalg.solve(np.array(mass, dtype=float), momenta)
    return th, velocity


@pytest.mark.parametrize("symbols", ["plain", "dynamicsymbols"])
def test_sympy_double_pendulum_matches_the_builtin(symbols):
    (th0, v0) = builtin_start()
    if symbols == "plain":
        th1, th2, w1, w2 = sympy.symbols("th1 th2 th1_dot th2_dot")
        coordinates = [th1, th2]
        initial = {th1: th0[0], th2: th0[1], w1: v0[0], w2: v0[1]}
    else:
        th1, th2 = dynamicsymbols("th1 th2")
        t = dynamicsymbols._t
        w1, w2 = th1.diff(t), th2.diff(t)
        coordinates = [th1, th2]
        initial = {th1: th0[0], th2: th0[1], w1: v0[0], w2: v0[1]}
    lagrangian, wall, (m1, m2, l1, l2, g) = double_pendulum_lagrangian(th1, th2, w1, w2)
    model = mechint.Model.from_sympy(
        lagrangian, coordinates, parameters={m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 10.0, "wall_offset": 0.25},
        unilateral=[wall], initial=initial, name="sympy-double-pendulum")
    assert "lagrangian" in model.text and "^" in model.text
    for law in ("mhc", "ctec"):
        mine = model.system().run(method="vi-trapezoid", h=0.01, t_end=3.0, impact=law)
        builtin = mechint.System("double-pendulum", wall=1).run(method="vi-trapezoid", h=0.01, t_end=3.0, impact=law)
        for column in ("th1", "th2", "energy"):
            assert np.max(np.abs(mine[column] - builtin[column])) <= 1e-12, (law, column)
        # The run reaches the wall.
        x2 = np.sin(mine["th1"]) + np.sin(mine["th1"] + mine["th2"])
        assert np.min(x2 + 0.25) < 2e-2


def test_sympy_model_with_constraint_symmetry_and_forces():
    # A damped spherical pendulum in Cartesian coordinates, pushed around the vertical by a control:
    # Jz changes by exactly the discrete work of the forces (the forced Noether theorem).
    x, y, z = sympy.symbols("x y z")
    vx, vy, vz = sympy.symbols("x_dot y_dot z_dot")
    m, l, grav, c = sympy.symbols("m l g c")
    u = sympy.Symbol("u")
    lagrangian = m * (vx ** 2 + vy ** 2 + vz ** 2) / 2 - m * grav * z
    model = mechint.Model.from_sympy(
        lagrangian, [x, y, z], parameters={m: 1.0, l: 1.0, grav: 9.81, c: 0.1},
        constraints=[(x ** 2 + y ** 2 + z ** 2 - l ** 2) / 2], symmetries=[[-y, x, 0]],
        forces=[-c * vx - u * y, -c * vy + u * x, -c * vz], controls=[u],
        initial={x: np.sin(0.5), z: -np.cos(0.5), vy: 1.0}, name="pushed-spherical-pendulum")
    traj = model.system(u=0.2).run(method="vi-midpoint", h=0.01, t_end=2.0)
    assert np.max(traj["constraint_residual"]) < 1e-12
    closure = traj["J1"] - traj["J1"][0] - traj["J1_work"]
    assert np.max(np.abs(closure)) < 1e-13
    assert abs(traj["J1"][-1] - traj["J1"][0]) > 1e-2  # the push does change it


def test_pi_and_e_are_the_grammars():
    q, qd = sympy.symbols("q q_dot")
    model = mechint.Model.from_sympy(qd ** 2 / 2 - sympy.pi * sympy.exp(1) * q ** 2, [q], initial={q: 1.0},
                                     name="pi-e")
    assert "pi*exp(1)" in model.text.replace(" ", "") or "exp(1)*pi" in model.text.replace(" ", "")
    energy = float(re.search(r"start: energy ([^\s,]+)", model.check()).group(1))
    assert energy == pytest.approx(np.pi * np.e, rel=1e-12)


def test_expressions_outside_the_grammar_are_value_errors():
    q, qd = sympy.symbols("q q_dot")
    with pytest.raises(ValueError, match="besselj"):
        mechint.Model.from_sympy(qd ** 2 / 2 - sympy.besselj(0, q), [q])
    with pytest.raises(ValueError, match="I"):
        mechint.Model.from_sympy(qd ** 2 / 2 - sympy.I * q, [q])


def test_constants_are_written_exactly():
    q, qd = sympy.symbols("q q_dot")
    k = 0.1 + 0.2  # not a short decimal
    model = mechint.Model.from_sympy(qd ** 2 / 2 - sympy.Float(k) * q ** 2, [q], initial={q: 1.0},
                                     name="exact-constants")
    assert repr(k) in model.text
    # mechint check evaluates the start's energy from the expressions (nothing compiled): k q0^2.
    described = model.check()
    energy = float(re.search(r"start: energy ([^\s,]+)", described).group(1))
    assert energy == pytest.approx(k, rel=1e-6)


def test_undeclared_symbols_are_refused_not_read_as_constants():
    # A symbol named pi that is not declared used to become the constant pi of the grammar.
    q, qd, pi, k = sympy.symbols("q q_dot pi k")
    with pytest.raises(ValueError, match="undeclared symbol.*pi"):
        mechint.Model.from_sympy(qd ** 2 / 2 - pi * q ** 2, [q], name="undeclared-pi")
    with pytest.raises(ValueError, match="undeclared symbol.*k"):
        mechint.Model.from_sympy(qd ** 2 / 2 - k * q ** 2, [q], name="undeclared-k")
    # t belongs to forces only
    with pytest.raises(ValueError, match="undeclared symbol.*t"):
        mechint.Model.from_sympy(qd ** 2 / 2 - sympy.Symbol("t") * q ** 2, [q], name="undeclared-t")
    # Declared as a parameter, a symbol is the parameter, with its value ...
    model = mechint.Model.from_sympy(qd ** 2 / 2 - k * q ** 2, [q], parameters={k: 2.0}, initial={q: 1.0},
                                     name="declared-k")
    energy = float(re.search(r"start: energy ([^\s,]+)", model.check()).group(1))
    assert energy == pytest.approx(2.0, rel=1e-15)
    # ... but not one named pi, which the model-file grammar keeps for the constant.
    with pytest.raises(ValueError, match="pi"):
        mechint.Model.from_sympy(qd ** 2 / 2 - pi * q ** 2, [q], parameters={pi: 2.0}, name="declared-pi").check()


def chain_lagrangian(n):
    """The planar chain of DESIGN §5 in joint angles (unit masses and links, g = 9.81), from the
    positions of its masses: the built-in pendulum-chain's model, derived here by SymPy."""
    th = sympy.symbols(f"th1:{n + 1}")
    w = [sympy.Symbol(f"th{i}_dot") for i in range(1, n + 1)]
    g = sympy.Symbol("g")
    x = y = 0
    angle = 0
    kinetic = potential = 0
    for i in range(n):
        angle = angle + th[i]
        x, y = x + sympy.sin(angle), y - sympy.cos(angle)
        vx = sum(sympy.diff(x, q) * v for q, v in zip(th, w))
        vy = sum(sympy.diff(y, q) * v for q, v in zip(th, w))
        kinetic += (vx ** 2 + vy ** 2) / 2
        potential += g * y
    return kinetic - potential, list(th), g


def test_a_large_sympy_model_is_written_with_definitions_and_matches_the_builtin():
    n = 12
    lagrangian, th, g = chain_lagrangian(n)
    # Written out, the Lagrangian is longer than a model file accepts for one expression.
    assert len(str(lagrangian)) > 10000
    model = mechint.Model.from_sympy(lagrangian, th, parameters={g: 9.81}, initial={th[0]: 0.7853981633974483},
                                     name="sympy-chain-12")
    assert "[definitions]" in model.text
    mine = model.system().run(method="vi-midpoint", h=0.01, t_end=2.0)
    builtin = mechint.System("pendulum-chain", links=n).run(method="vi-midpoint", h=0.01, t_end=2.0)
    for column in ("th1", "th6", "th12", "energy"):
        assert np.max(np.abs(mine[column] - builtin[column])) <= 1e-9, column
