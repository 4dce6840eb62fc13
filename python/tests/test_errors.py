"""Errors: ValueError with the command line's message, NumericalFailure with where it happened."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import mechint
from conftest import cli_error_line, run_cli


@pytest.mark.parametrize("cli_args, call", [
    (("run", "no-such-system"), lambda: mechint.System("no-such-system")),
    (("run", "kepler", "--set", "mu=-1"), lambda: mechint.System("kepler", mu=-1).run()),
    (("run", "kepler", "--set", "nothing=1"), lambda: mechint.System("kepler", nothing=1).run()),
    (("run", "kepler", "--method", "dae"), lambda: mechint.System("kepler").run(method="dae")),
    (("run", "kepler", "--method", "vi-midpoint", "--set", "rtol=1e-9"),
     lambda: mechint.System("kepler").run(method="vi-midpoint", rtol=1e-9)),
    (("run", "kepler", "--h", "0.3", "--t-end", "1"), lambda: mechint.System("kepler").run(h=0.3, t_end=1)),
    (("run", "rigid-body", "--set", "I1=1", "--set", "I2=2", "--set", "I3=100"),
     lambda: mechint.System("rigid-body", I1=1, I2=2, I3=100).run()),
    (("run", "spherical-pendulum", "--set", "x=2"), lambda: mechint.System("spherical-pendulum", x=2).run()),
])
def test_bad_input_is_a_value_error_with_the_command_lines_line(cli_args, call):
    cli = run_cli(*cli_args)
    assert cli.status == 2
    with pytest.raises(ValueError) as error:
        call()
    assert str(error.value) == cli_error_line(cli)


def test_a_bad_model_file_is_located(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\ncoordinates = ["x"]\nlagrangian = "0.5*x_dot^2 - sinn(x)"\n')
    cli = run_cli("run", str(bad))
    with pytest.raises(ValueError) as error:
        mechint.System(str(bad)).run()
    assert str(error.value) == cli_error_line(cli)
    assert f"{bad}:3:" in str(error.value)


def test_settings_must_be_numbers_or_names():
    with pytest.raises(ValueError, match="not a number or a name"):
        mechint.System("kepler", mu=[1.0])
    with pytest.raises(ValueError, match="not True"):
        mechint.System("kepler", mu=True)


NEWTON_FAILURE = ("pendulum-chain", dict(links=4, th1=3.0), dict(h=0.8, t_end=80.0))


def test_newton_failure_carries_step_time_and_residual():
    name, settings, run = NEWTON_FAILURE
    cli = run_cli("run", name, *sum((["--set", f"{k}={v}"] for k, v in settings.items()), []),
                  "--h", str(run["h"]), "--t-end", str(run["t_end"]))
    assert cli.status == 3, cli.err
    with pytest.raises(mechint.NumericalFailure) as error:
        mechint.System(name, **settings).run(**run)
    e = error.value
    assert str(e) == cli_error_line(cli)
    assert isinstance(e, RuntimeError)
    assert isinstance(e.step, int) and e.step >= 1
    assert e.time == pytest.approx(e.step * run["h"])
    if isinstance(e, mechint.NewtonFailure):
        assert e.residual is not None and e.residual > 0
        assert f"step {e.step}" in str(e)


def test_stepping_failure_leaves_the_last_good_state():
    name, settings, run = NEWTON_FAILURE
    integ = mechint.System(name, **settings).integrator(None, h=run["h"])
    with pytest.raises(mechint.NumericalFailure) as error:
        for _ in range(int(run["t_end"] / run["h"])):
            integ.step()
    assert error.value.step == integ.steps + 1
    assert integ.t == pytest.approx(integ.steps * run["h"])


def test_domain_error_is_a_numerical_failure():
    # The three-body problem's collision with a primary (the model's own domain check).
    settings = dict(x=0.1, vy=-0.112150585609624, collision_radius=0.0166)
    cli = run_cli("run", "three-body", *sum((["--set", f"{k}={v}"] for k, v in settings.items()), []), "--h", "0.001")
    assert cli.status == 3, cli.err
    with pytest.raises(mechint.DomainError) as error:
        mechint.System("three-body", **settings).run(h=0.001)
    e = error.value
    assert isinstance(e, mechint.NumericalFailure)
    assert str(e) == cli_error_line(cli)
    # The configuration refused is that of the step reached: its index and time.
    assert e.step == 41 and e.time == pytest.approx(0.041)
    assert e.residual is None


def test_ctrl_c_interrupts_a_long_run():
    # SIGINT half a second into a run of 1e9 steps: KeyboardInterrupt, within seconds.
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            mechint.System("harmonic-oscillator").run(h=1e-3, t_end=1e6, output_every=1e6)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10.0


def test_ctrl_c_interrupts_a_script():
    script = textwrap.dedent("""
        import mechint, sys
        print("running", flush=True)
        mechint.System("harmonic-oscillator").run(h=1e-3, t_end=1e6, output_every=1e6)
    """)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "running"
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert process.returncode != 0
    assert "KeyboardInterrupt" in err
