#!/usr/bin/env python3
"""Figures of `mechint reproduce double-spherical-pendulum` (000 Figs. 7-12): CPU time and errors
against h on log-log axes, y2 against time at the smallest and largest steps, and the VI's energy
against time with the multipliers (Fig. 12)."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "table.csv")))
fig, axes = plt.subplots(1, 4, figsize=(17, 4))
for ax, key, title in zip(axes, ["cpu_s", "position_error", "energy_error", "momentum_error"],
                          ["Fig. 7: CPU time [s]", "Fig. 8: position error", "Fig. 10: energy error",
                           "Fig. 11: momentum error"]):
    for method in ["vi", "energy-momentum"]:
        pts = [(float(r["h"]), float(r[key])) for r in rows if r["method"] == method and float(r[key]) > 0]
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label=method)
    ax.set_xlabel("h [s]")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
fig.tight_layout()
fig.savefig(out / "errors.png", dpi=110)

tr = list(csv.DictReader(open(out / "traces.csv")))
steps = sorted({r["h"] for r in tr}, key=float)
fig, ax = plt.subplots(figsize=(9, 4))
for step in (steps[0], steps[-1]):
    for method in ["vi", "energy-momentum"]:
        sel = [r for r in tr if r["h"] == step and r["method"] == method]
        ax.plot([float(r["t"]) for r in sel], [float(r["y2"]) for r in sel], label=f"{method}, h = {step}")
ax.set_xlabel("t [s]")
ax.set_ylabel("y2 [m]")
ax.set_title("Fig. 9: y position of the second mass")
ax.legend()
fig.tight_layout()
fig.savefig(out / "y2.png", dpi=110)

fig, axes = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
for step, ax in [(steps[0], axes[0]), (steps[1], axes[0]), (steps[2], axes[2]), (steps[3], axes[2])]:
    sel = [r for r in tr if r["h"] == step and r["method"] == "vi"]
    ax.plot([float(r["t"]) for r in sel], [float(r["energy"]) for r in sel], label=f"VI, h = {step}")
sel = [r for r in tr if r["h"] == steps[2] and r["method"] == "vi"]
for key in ["lambda1", "lambda2"]:
    axes[1].plot([float(r["t"]) for r in sel], [float(r[key]) for r in sel], label=f"{key}, h = {steps[2]}")
axes[0].set_ylabel("energy [J]")
axes[1].set_ylabel("multiplier (per-step impulse)")
axes[2].set_ylabel("energy [J]")
axes[2].set_xlabel("t [s]")
axes[0].set_title("Fig. 12: VI energy against time, and the multipliers")
for ax in axes:
    ax.legend()
fig.tight_layout()
fig.savefig(out / "energy.png", dpi=110)
