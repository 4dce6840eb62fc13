"""The tutorial of docs/python.md, as the script the test suite runs (python/tests/test_tutorial.py).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/tutorial.py [OUT_DIR]
"""
import sys
from pathlib import Path

import matplotlib
matplotlib.use("Agg")  # no display needed: figures go to files
import matplotlib.pyplot as plt
import numpy as np
import sympy

import mechint

out = Path(sys.argv[1] if len(sys.argv) > 1 else "tutorial-output")
out.mkdir(parents=True, exist_ok=True)

# --- 1. A built-in system, run as `mechint run` runs it ----------------------------------------
print(mechint.systems())
kepler = mechint.System("kepler", x=0.5, vy=1.7320508075688772)   # any --set NAME=VALUE
print(kepler.methods, kepler.default_method)
traj = kepler.run(h=0.05, t_end=100.0, output_every=0.5)
print(traj)                                           # Trajectory(201 rows; columns t, x, y, energy, J)
drift = np.max(np.abs(traj["energy"] - traj["energy"][0]))
jz_drift = np.max(np.abs(traj["J"] - traj["J"][0]))
print(f"energy error {drift:.2e} (bounded), angular momentum error {jz_drift:.1e} (round-off)")
high = kepler.run(method="vi-gauss8", h=0.05, t_end=100.0)            # order 8 (docs/methods.md)
composed = kepler.run(h=0.05, t_end=100.0, compose="kahan-li6")        # the midpoint rule composed to order 6
assert jz_drift < 1e-12

fig, (orbit, energy) = plt.subplots(1, 2, figsize=(9, 4))
orbit.plot(traj["x"], traj["y"]); orbit.set_aspect("equal"); orbit.set_title("orbit, h = 0.05")
traj.plot("energy", ax=energy)
fig.savefig(out / "kepler.png")

# --- 2. Stepping under your own loop: a controller in the loop ---------------------------------
cart_pole = mechint.System("cart-pole")                # x the cart, th the pole; force u1 on the cart
integ = cart_pole.integrator("vi-midpoint", h=0.01)
while integ.t < 5.0 - 1e-9:
    x, x_dot = integ.q[0], integ.velocity[0]
    integ.set_controls([-6.0 * (x - 0.3) - 4.0 * x_dot])   # drive the cart to x = 0.3
    integ.step()
print(f"t = {integ.t:.2f}: cart at {integ.q[0]:.3f}, energy {integ.energy:.4f}")

# --- 3. Your own mechanism, written in SymPy ---------------------------------------------------
r, th = sympy.symbols("r th")                          # an elastic pendulum in polar coordinates
r_dot, th_dot = sympy.symbols("r_dot th_dot")          # velocities: <coordinate>_dot
m, k, l0, g = sympy.symbols("m k l0 g")
lagrangian = m / 2 * (r_dot**2 + r**2 * th_dot**2) - k / 2 * (r - l0)**2 + m * g * r * sympy.cos(th)
model = mechint.Model.from_sympy(lagrangian, [r, th], parameters={m: 1.0, k: 40.0, l0: 1.0, g: 9.81},
                                 initial={r: 1.1, th: 0.8}, name="elastic-pendulum")
print(model.check())                                   # what mechint derives, before compiling
spring = model.system(k=60.0).run(method="vi-midpoint", h=0.005, t_end=10.0)   # compiled once, cached
spring.plot("r", "th").figure.savefig(out / "elastic-pendulum.png")

# --- 4. Optimal control (DMOC): swing a pendulum up with the least effort ----------------------
result = mechint.optimize({"model": "damped-pendulum", "horizon": 3.0, "steps": 60,
                           "parameters": {"c": 0.0},
                           "start": {"th": 0.0}, "goal": {"th": np.pi, "th_dot": 0.0}})
print(result)                                          # OptimalControlResult(cost=..., status='Solve_Succeeded')
fig, ax = plt.subplots()
ax.plot(result.t, result.q[:, 0], label="th")
ax.step(result.t[:-1], result.u[:, 0], where="post", label="u1")
ax.legend(); ax.set_xlabel("t")
fig.savefig(out / "swing-up.png")
print("figures in", out)
