#!/usr/bin/env python3
"""Figure of `mechint optimize`: the optimal coordinates and controls against time (trajectory.csv)."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
reader = csv.reader(open(out / "trajectory.csv"))
header = next(reader)
rows = [[float(x) for x in r] for r in reader]
# Columns: t, the coordinates, the controls u1, u2, …, energy.
first_control = header.index("u1")
coordinates = header[1:first_control]
controls = header[first_control : header.index("energy")]
t = [r[0] for r in rows]
fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for name in coordinates:
    i = header.index(name)
    axes[0].plot(t, [r[i] for r in rows], label=name)
for name in controls:
    i = header.index(name)
    # u_k holds over [t_k, t_k+1): drawn as steps.
    axes[1].step(t, [r[i] for r in rows], where="post", label=name)
axes[0].set_ylabel("coordinates")
axes[1].set_ylabel("controls")
axes[1].set_xlabel("t")
for ax in axes:
    ax.grid(True, alpha=0.3)
    ax.legend()
fig.suptitle("optimal motion (DMOC)")
fig.tight_layout()
fig.savefig(out / "trajectory.png", dpi=120)
