#!/usr/bin/env python3
"""Figure of `mechint reproduce nonholonomic`: per system (columns), the path in the plane against
the reference (top), the relative energy error (middle) and the discrete constraint residual (bottom)
of vi-midpoint and vi-trapezoid."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
methods = ["vi-midpoint", "vi-trapezoid"]
panels = [("nonholonomic_chaplygin-sleigh.csv", "Chaplygin sleigh"), ("nonholonomic_rolling-disk.csv", "rolling disk")]
fig, axes = plt.subplots(3, 2, figsize=(12, 11))
for col, (name, title) in enumerate(panels):
    rows = list(csv.DictReader(open(out / name)))
    t = [float(r["t"]) for r in rows]
    path, energy, residual = axes[0][col], axes[1][col], axes[2][col]
    path.plot([float(r["x_reference"]) for r in rows], [float(r["y_reference"]) for r in rows], "k--", lw=1.5,
              label="reference")
    for m in methods:
        path.plot([float(r["x_" + m]) for r in rows], [float(r["y_" + m]) for r in rows], lw=0.8, label=m)
        energy.semilogy(t, [max(float(r["energy_error_" + m]), 1e-17) for r in rows], lw=0.8, label=m)
        residual.semilogy(t, [max(float(r["residual_" + m]), 1e-20) for r in rows], lw=0.8, label=m)
    path.set_title(title + ", h = 0.05")
    path.set_xlabel("x")
    path.set_ylabel("y")
    path.set_aspect("equal", adjustable="datalim")
    energy.set_ylabel("|E - E0| / E0")
    residual.set_ylabel("discrete constraint residual")
    residual.set_xlabel("t")
    for ax in (path, energy, residual):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
fig.suptitle("Discrete Lagrange-d'Alembert integrators against reference motions")
fig.tight_layout()
fig.savefig(out / "nonholonomic.png", dpi=120)
