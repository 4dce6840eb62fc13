#!/usr/bin/env python3
"""Figures of `mechint reproduce rigid-body` (000 Figs. 2-4): errors and CPU time against h on
log-log axes, and q_y against time at the smallest and largest steps."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "table.csv")))
h = [float(r["h"]) for r in rows]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
for key, label in [("quaternion_error", "quaternion"), ("energy_error", "energy"), ("momentum_error", "momentum")]:
    pts = [(x, float(r[key])) for x, r in zip(h, rows) if float(r[key]) > 0]
    axes[0].loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label=label + " error")
axes[0].set_xlabel("h [s]")
axes[0].set_title("000 Table 1 / Fig. 3: errors (eq. 5.10)")
axes[1].loglog(h, [float(r["cpu_s"]) for r in rows], "o-")
axes[1].set_xlabel("h [s]")
axes[1].set_ylabel("CPU time [s]")
axes[1].set_title("Fig. 2: CPU time")
for ax in axes:
    ax.grid(True, which="both", alpha=0.3)
axes[0].legend()
fig.tight_layout()
fig.savefig(out / "errors.png", dpi=120)

rows = list(csv.DictReader(open(out / "traces.csv")))
fig, ax = plt.subplots(figsize=(8, 4))
for step in dict.fromkeys(r["h"] for r in rows):
    sel = [r for r in rows if r["h"] == step]
    ax.plot([float(r["t"]) for r in sel], [float(r["qy"]) for r in sel], label=f"h = {step}")
ax.set_xlabel("t [s]")
ax.set_ylabel("q_y")
ax.set_title("Fig. 4: quaternion coordinate q_y")
ax.legend()
fig.tight_layout()
fig.savefig(out / "qy.png", dpi=120)
