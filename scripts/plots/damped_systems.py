#!/usr/bin/env python3
"""Figure of `mechint reproduce damped-systems`: energy against time on a log scale (top) and
divided by the exact or reference energy (bottom), one column per system."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
panels = [
    ("damped_oscillator_energy.csv", "exact", "damped oscillator, zeta = 1e-3, 10 steps/period"),
    ("damped_pendulum_energy.csv", "reference", "damped pendulum, c = 0.01, theta0 = 1, 10 steps/period"),
]
fig, axes = plt.subplots(2, 2, figsize=(12, 7.5), sharex="col")
for col, (name, standard, title) in enumerate(panels):
    rows = list(csv.DictReader(open(out / name)))
    t = [float(r["t"]) for r in rows]
    e0 = [float(r[standard]) for r in rows]
    methods = [c for c in rows[0].keys() if c not in ("t", standard)]
    top, bottom = axes[0][col], axes[1][col]
    for method in methods:
        e = [float(r[method]) for r in rows]
        top.semilogy(t, e, lw=0.8, label=method)
        bottom.semilogy(t, [a / b for a, b in zip(e, e0)], lw=0.8, label=method)
    top.semilogy(t, e0, "k--", lw=1.0, label=standard)
    bottom.axhline(1.0, color="k", ls="--", lw=1.0)
    top.set_title(title)
    top.set_ylabel("energy E")
    bottom.set_ylabel(f"E / E_{standard}")
    bottom.set_xlabel("t")
    for ax in (top, bottom):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
fig.suptitle("Energy decay: forced variational integrators against the exact decay and RK4 at the same step")
fig.tight_layout()
fig.savefig(out / "damped_systems.png", dpi=120)
