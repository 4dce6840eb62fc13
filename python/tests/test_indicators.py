"""The chaos indicators from Python: run(..., indicators='on') adds the megno and lyapunov columns
(docs/chaos-indicators.md), here against the theory's values: <Y> tends to 2 on a Kepler orbit
(quasi-periodic), for a Galerkin rule and for rk78 (the variational equations), and grows far beyond
it on a chaotic Henon-Heiles orbit (E = 1/6)."""

import math
import os

import pytest

import mechint


def test_kepler_megno_tends_to_two():
    t = mechint.System("kepler").run(method="vi-gauss4", h=0.05, t_end=1256.6, output_every=100, indicators="on")
    assert t.columns[-3:] == ("megno", "lyapunov", "fli")
    assert t["megno"][0] == 0.0
    assert abs(t["megno"][-1] - 2.0) < 0.1
    assert abs(t["lyapunov"][-1]) < 0.01


def test_chaotic_henon_heiles_model_file():
    model = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "models", "henon-heiles.toml")
    y0 = -0.1
    x_dot = math.sqrt(2 * (1 / 6 - (y0**2 / 2 - y0**3 / 3)))
    t = mechint.System(model).run(method="vi-midpoint", h=0.02, t_end=2000, output_every=2000, indicators="on",
                                  y=y0, x_dot=x_dot, y_dot=0.0)
    assert t["megno"][-1] > 10.0


def test_refused_without_a_tangent_map():
    # energy-momentum has no option indicators (no tangent map is linearised for it).
    with pytest.raises(ValueError, match="indicators"):
        mechint.System("double-spherical-pendulum").run(method="energy-momentum", t_end=1, indicators="on")


def test_runge_kutta_columns_by_the_variational_equations():
    t = mechint.System("kepler").run(method="rk78", h=0.05, t_end=1256.6, output_every=100, indicators="on",
                                     rtol=1e-10, atol=1e-12)
    assert t.columns[-3:] == ("megno", "lyapunov", "fli")
    assert abs(t["megno"][-1] - 2.0) < 0.1
