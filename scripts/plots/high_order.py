#!/usr/bin/env python3
"""Figures of `mechint reproduce high-order`: error at t_end against CPU time per problem and method,
and the energy error over 1e6 steps of the Kepler orbit."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "work_precision.csv")))
problems = sorted({r["problem"] for r in rows})
fig, axes = plt.subplots(1, len(problems), figsize=(5 * len(problems), 4.5), squeeze=False)
for ax, problem in zip(axes[0], problems):
    sel = [r for r in rows if r["problem"] == problem]
    for method in sorted({r["method"] for r in sel}):
        pts = [(float(r["cpu_s"]), float(r["error"])) for r in sel if r["method"] == method and float(r["error"]) > 0]
        if not pts:
            continue
        style = "s--" if method in ("dopri5", "rk78", "dae") else "o-"
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], style, label=method, markersize=3)
    ax.set_title(problem)
    ax.set_xlabel("CPU s")
    ax.set_ylabel("error in q at t_end")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)
fig.tight_layout()
fig.savefig(out / "work_precision.png", dpi=110)

energy = list(csv.DictReader(open(out / "energy.csv")))
fig, ax = plt.subplots(figsize=(7, 4))
for method in sorted({r["method"] for r in energy}):
    sel = [r for r in energy if r["method"] == method]
    ax.semilogy([int(r["step"]) for r in sel], [max(float(r["energy_error"]), 1e-17) for r in sel], label=method, lw=0.6)
ax.set_title("Kepler e = 0.5, 50 steps per period: |E - E0| over 1e6 steps")
ax.set_xlabel("step")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=6)
fig.tight_layout()
fig.savefig(out / "energy.png", dpi=110)
