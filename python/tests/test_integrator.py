"""Stepping from Python: the same trajectory as run, the state the stepper has, a controller in the loop."""

import numpy as np
import pytest

import mechint


def stepped_rows(integ, steps):
    rows = [integ.row()]
    for _ in range(steps):
        integ.step()
        rows.append(integ.row())
    return np.array(rows)


@pytest.mark.parametrize("name, method, settings", [
    ("kepler", None, {}),
    ("kepler", "rk78", {"rtol": 1e-11}),                 # adaptive: its own steps to each multiple of h
    ("spherical-pendulum", "vi-trapezoid", {}),            # constrained, multipliers
    ("spherical-pendulum", "dae", {}),                     # SUNDIALS IDA
    ("double-spherical-pendulum", "energy-momentum", {}),
    ("spherical-pendulum", "vi-midpoint", {"coordinates": "angles"}),  # a chart
    ("double-pendulum", None, {"wall": 1}),                # the impact driver, starts from momenta
    ("pendulum-chain", "vi-first-order", {"links": 3}),
    ("kepler", "vi-gauss6", {}),                           # on the kernel boundary: the built-in's kernels by AD
    ("spherical-pendulum", "vi-lobatto4", {}),             # constraints at every node
])
def test_stepping_gives_the_run(name, method, settings):
    system = mechint.System(name, **settings)
    traj = system.run(method=method, h=0.01, t_end=2.0)
    integ = system.integrator(method, h=0.01)
    assert list(integ.columns) == list(traj.columns)
    rows = stepped_rows(integ, 200)
    assert np.array_equal(rows, traj.to_numpy())
    assert integ.steps == 200
    assert integ.t == pytest.approx(2.0, abs=1e-12)


def test_state_of_the_variational_integrator():
    integ = mechint.System("kepler").integrator("vi-midpoint", h=0.05)
    j0 = integ.momenta.copy()
    e0 = integ.energy
    integ.step(400)
    assert integ.q.shape == (2,) and integ.p.shape == (2,) and integ.velocity.shape == (2,)
    # The discrete Noether theorem: angular momentum to round-off; energy bounded.
    assert integ.momenta.shape == (1,)
    assert abs(integ.momenta[0] - j0[0]) < 1e-13 * max(1.0, abs(j0[0]))
    assert abs(integ.energy - e0) < 1e-2 * abs(e0)
    assert integ.multipliers.shape == (0,) and integ.constraint_residual.shape == (0,)


def test_constrained_state():
    integ = mechint.System("spherical-pendulum").integrator("vi-midpoint", h=0.01)
    integ.step(100)
    assert integ.multipliers.shape == (1,)
    assert np.max(np.abs(integ.constraint_residual)) < 1e-12


def test_methods_without_a_momentum_say_none():
    integ = mechint.System("kepler").integrator("rk4", h=0.01)
    assert integ.p is None and integ.velocity is not None
    impact = mechint.System("double-pendulum", wall=1).integrator(None, h=0.01)
    assert impact.velocity is None and impact.p is not None


def test_start_restarts_from_any_state():
    system = mechint.System("harmonic-oscillator")
    names = list(system.parameters)
    integ = system.integrator("vi-midpoint", h=0.1)
    integ.step(5)
    integ.start([0.3], [-0.2])
    assert integ.t == 0.0 and integ.steps == 0
    assert integ.q[0] == 0.3
    coordinate, velocity = "q", "v"
    assert coordinate in names and velocity in names
    expected = mechint.System("harmonic-oscillator", q=0.3, v=-0.2).run(method="vi-midpoint", h=0.1, t_end=1.0)
    assert np.array_equal(stepped_rows(integ, 10), expected.to_numpy())


def test_start_from_velocities_of_a_system_that_starts_from_momenta():
    # The impact driver starts from p0 = dL/dqdot(q0, qdot0); at rest p0 = 0.
    integ = mechint.System("double-pendulum").integrator(None, h=0.01)
    integ.start([0.3, 0.2], [0.0, 0.0])
    assert np.array_equal(integ.p, [0.0, 0.0])
    assert integ.energy == pytest.approx(mechint.System("double-pendulum", th1=0.3, th2=0.2, p1=0, p2=0)
                                         .run(t_end=0.01)["energy"][0], abs=0)


def test_bad_starts_are_value_errors_and_keep_the_state():
    integ = mechint.System("spherical-pendulum").integrator("vi-midpoint", h=0.01)
    integ.step(3)
    q = integ.q.copy()
    with pytest.raises(ValueError, match="expected 3 values"):
        integ.start([1.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="constraint"):
        integ.start([2.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert np.array_equal(integ.q, q) and integ.steps == 3
    integ.step()
    assert integ.steps == 4


def test_a_controller_in_the_loop():
    # A PD controller on the cart position, from Python; the same controls given to run as a
    # schedule must reproduce the stepped motion exactly.
    system = mechint.System("cart-pole")
    integ = system.integrator("vi-midpoint", h=0.01)
    times, pushes, rows = [], [], [integ.row()]
    for _ in range(300):
        x, xdot = integ.q[0], integ.velocity[0]
        u = -4.0 * (x - 0.5) - 3.0 * xdot
        times.append(integ.t)
        pushes.append(u)
        integ.set_controls([u])
        integ.step()
        rows.append(integ.row())
    assert abs(integ.q[0] - 0.5) < 0.2  # the controller moved the cart towards 0.5
    replay = system.run(method="vi-midpoint", h=0.01, t_end=3.0, controls={"t": times, "u1": pushes})
    stepped, ran = np.array(rows), replay.to_numpy()
    # Every row is the run's; only the start row's u1 differs: the run shows there the control of
    # the first step, which the controller had not chosen yet when the stepped row was taken.
    u1 = replay.columns.index("u1")
    assert np.array_equal(stepped[1:], ran[1:])
    assert np.array_equal(np.delete(stepped[0], u1), np.delete(ran[0], u1))
    assert ran[0, u1] == pushes[0]


def test_controls_are_refused_without_control_inputs():
    integ = mechint.System("kepler").integrator(None, h=0.01)
    with pytest.raises(ValueError, match="no control inputs"):
        integ.set_controls([1.0])
    with pytest.raises(ValueError, match="expected 1 values"):
        mechint.System("cart-pole").integrator(None, h=0.01).set_controls([1.0, 2.0])


def test_help_is_useful():
    assert "start(q0, qdot0)" in mechint.Integrator.__doc__
    assert "settings" in mechint.System.__doc__
    assert "Trajectory" in mechint.System.run.__doc__


@pytest.mark.parametrize("name", mechint.systems())
def test_every_method_of_every_system_steps(name):
    settings = {"links": 3} if name == "pendulum-chain" else {}
    system = mechint.System(name, **settings)
    for method in system.methods:
        integ = system.integrator(method, h=0.01)
        traj = system.run(method=method, h=0.01, t_end=0.05)
        integ.step(5)
        assert np.array_equal(integ.row(), traj.to_numpy()[-1]), method


def test_an_integrator_refuses_a_second_thread():
    import threading

    system = mechint.System("pendulum-chain", links=3)
    integ = system.integrator("vi-midpoint", h=0.001)
    failures, refused, stepped = [], 0, 0
    # The worker steps without the GIL; meanwhile this thread's calls must be refused, not interleaved.
    # Repeated until a call fell inside a worker's stepping (the first round nearly always does).
    for _ in range(20):
        steps = 500_000
        started = threading.Event()

        def step_many():
            started.set()
            integ.step(steps)

        worker = threading.Thread(target=step_many)
        worker.start()
        started.wait()
        while worker.is_alive():
            for use in (lambda: integ.q, lambda: integ.step(), lambda: integ.row()):
                try:
                    use()
                except RuntimeError as error:
                    assert "in use by another thread" in str(error)
                    refused += 1
                except Exception as error:  # anything else is a failure of the guard
                    failures.append(error)
        worker.join()
        stepped += steps
        if refused:
            break
    assert not failures
    assert refused > 0
    # Nothing the refused calls did reached the state: it is the state of an undisturbed run of as many
    # steps (those this thread took while the integrator was free included).
    alone = system.integrator("vi-midpoint", h=0.001)
    alone.step(integ.steps)
    assert integ.steps >= stepped
    assert np.array_equal(integ.q, alone.q) and integ.t == alone.t


def test_a_run_that_cannot_fit_in_memory_is_refused_up_front():
    with pytest.raises(ValueError, match="memory"):
        mechint.System("kepler").run(t_end=1e9, output_every=0)


def test_composition_is_an_option_of_the_midpoint_rule():
    """compose= raises the order: on Kepler at h = 0.05 the order-8 composition ends far closer to
    rk78 at a tight tolerance than the midpoint rule it composes."""
    system = mechint.System("kepler")
    ref = system.run(method="rk78", h=0.05, t_end=5.0, rtol=1e-13, atol=1e-15).to_numpy()[-1, 1:3]
    plain = system.run(method="vi-midpoint", h=0.05, t_end=5.0).to_numpy()[-1, 1:3]
    composed = system.run(method="vi-midpoint", h=0.05, t_end=5.0, compose="kahan-li8").to_numpy()[-1, 1:3]
    assert np.abs(composed - ref).max() < 1e-7
    assert np.abs(plain - ref).max() > 1e-4


def test_tangent_map_of_steps_equals_differences_of_the_step_map():
    # Kepler (L = |v|^2/2 + 1/|q|: p = v, so a start from (q, p) is a start from (q, qdot)), vi-gauss4
    # at Newton's tightest tolerance: the carried deviation after two steps against central differences
    # of the two-step map, and the ratio of the stretches.
    system = mechint.System("kepler")

    def steps_from(q, p, n):
        integ = system.integrator("vi-gauss4", h=0.05, newton_tol=1e-15)
        integ.start(q, p)
        integ.step(n)
        return np.concatenate([integ.q, integ.p])

    integ = system.integrator("vi-gauss4", h=0.05, newton_tol=1e-15)
    assert integ.deviation is None and np.isnan(integ.log_growth)
    integ.step(5)
    q, p = integ.q.copy(), integ.p.copy()
    delta = np.array([0.3, -0.2, 0.5, 0.1])
    integ.track(delta)
    assert np.allclose(integ.deviation, delta / np.linalg.norm(delta), rtol=0, atol=1e-15)
    assert integ.log_growth == 0.0
    integ.step(2)
    carried = integ.deviation * np.exp(integ.log_growth) * np.linalg.norm(delta)
    d = 1e-4
    difference = (steps_from(q + d * delta[:2], p + d * delta[2:], 2) -
                  steps_from(q - d * delta[:2], p - d * delta[2:], 2)) / (2 * d)
    assert np.linalg.norm(carried - difference) <= 1e-6 * np.linalg.norm(difference)
    with pytest.raises(ValueError, match="2n"):
        integ.track(np.ones(3))
    with pytest.raises(ValueError, match="no tangent map"):
        system.integrator("vi-first-order", h=0.05).track(delta)


def test_runge_kutta_carries_the_deviation_by_the_variational_equations():
    # rk4 with indicators="on": a deviation tracked from the start follows the variational equations
    # of the ODE; after 100 steps it equals central differences of 100 rk4 steps (Kepler: p = v).
    system = mechint.System("kepler")
    q0 = np.array([0.5, 0.0])
    p0 = np.array([0.0, 1.6])

    def steps_from(q, p, n):
        integ = system.integrator("rk4", h=0.01)
        integ.start(q, p)
        integ.step(n)
        return np.concatenate([integ.q, integ.velocity])

    integ = system.integrator("rk4", h=0.01, indicators="on")
    integ.start(q0, p0)
    delta = np.array([0.3, -0.2, 0.5, 0.1])
    integ.track(delta)
    integ.step(100)
    carried = integ.deviation * np.exp(integ.log_growth) * np.linalg.norm(delta)
    d = 1e-5
    difference = (steps_from(q0 + d * delta[:2], p0 + d * delta[2:], 100) -
                  steps_from(q0 - d * delta[:2], p0 - d * delta[2:], 100)) / (2 * d)
    assert np.linalg.norm(carried - difference) <= 1e-7 * np.linalg.norm(difference)
    with pytest.raises(ValueError, match="before the first step"):
        integ.track(delta)
    # Without indicators a deviation tracked from the start is carried the same way (the built-ins'
    # rk4 runs on their kernels): the same numbers.
    plain = system.integrator("rk4", h=0.01)
    plain.start(q0, p0)
    plain.track(delta)
    plain.step(100)
    assert np.array_equal(plain.deviation, integ.deviation) and plain.log_growth == integ.log_growth


def test_nonholonomic_multipliers_are_the_mu_columns():
    integ = mechint.System("chaplygin-sleigh").integrator("vi-midpoint", h=0.01)
    integ.step(50)
    columns = list(integ.columns)
    mu = [integ.row()[columns.index(c)] for c in columns if c.startswith("mu")]
    assert len(mu) >= 1
    assert np.array_equal(integ.multipliers, np.array(mu))
