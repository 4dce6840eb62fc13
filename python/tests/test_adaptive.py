"""Variable steps from Python (docs/adaptive-steps.md): run(..., adapt='sundman') on an eccentric Kepler
orbit closes after one period to the rule's accuracy with rows at the requested times, and
adapt='energy' keeps the discrete energy column constant; what does not apply is a ValueError."""

import math

import pytest

import mechint

E = 0.9
X0, VY0 = 1.0 - E, math.sqrt((1.0 + E) / (1.0 - E))  # pericentre of a = 1 (period 2 pi)


def test_sundman_rows_at_the_requested_times_and_a_closed_orbit():
    t = mechint.System("kepler").run(method="vi-gauss4", h=0.02, t_end=6.28, output_every=0.04, adapt="sundman",
                                     x=X0, y=0.0, vx=0.0, vy=VY0)
    assert len(t["t"]) == 158
    assert all(t["t"][k] == (4 * k) * 0.01 for k in range(len(t["t"]) - 1))
    # Kepler's exact solution at t = 6.28, just before the pericentre it started from (period 2 pi).
    mean = 6.28
    ecc = mean
    for _ in range(50):
        ecc -= (ecc - E * math.sin(ecc) - mean) / (1 - E * math.cos(ecc))
    x, y = math.cos(ecc) - E, math.sqrt(1 - E * E) * math.sin(ecc)
    assert math.hypot(t["x"][-1] - x, t["y"][-1] - y) < 1e-5
    assert max(abs(j - t["J"][0]) for j in t["J"]) < 1e-12


def test_energy_steps_keep_the_discrete_energy():
    t = mechint.System("kepler").run(method="vi-midpoint", h=0.01, t_end=6.2, output_every=0.2, adapt="energy")
    assert t.columns[-2:] == ("discrete_energy", "energy_fallbacks")
    assert max(abs(e - t["discrete_energy"][1]) for e in t["discrete_energy"][1:]) < 1e-13
    assert max(t["energy_fallbacks"]) == 0


def test_refused_where_it_does_not_apply():
    with pytest.raises(ValueError):
        mechint.System("harmonic-oscillator").run(method="vi-gauss4", t_end=1, adapt="sundman")
    with pytest.raises(ValueError):
        mechint.System("kepler").run(method="vi-gauss4", t_end=1, adapt="energy")
