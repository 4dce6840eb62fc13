#!/usr/bin/env python3
"""Figures of `mechint reproduce dsp-dae` (003 Figs. 17 and 18): relative energy and Jz errors
against time for the energy-momentum integrator and the DAE solver, and r1 against time for the
energy-momentum integrator at h = 0.05 and h = 0.001."""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
series = defaultdict(list)
for r in csv.DictReader(open(out / "series.csv")):
    series[r["label"]].append((float(r["t"]), float(r["energy"]), float(r["jz"]), float(r["r1"])))

dae_labels = [label for label in series if label.startswith("dae")]
fig, axes = plt.subplots(2, len(dae_labels), figsize=(5 * len(dae_labels), 7), sharex=True, squeeze=False)
for col, dae in enumerate(dae_labels):
    for label in ("energy-momentum h=0.001", dae):
        rows = series[label]
        e0, j0 = rows[0][1], rows[0][2]
        t = [r[0] for r in rows]
        axes[0][col].plot(t, [(r[1] - e0) / abs(e0) for r in rows], label=label)
        axes[1][col].plot(t, [(r[2] - j0) / abs(j0) for r in rows], label=label)
    axes[0][col].set_title(f"Fig. 17: energy-momentum vs {dae}", fontsize=9)
    axes[1][col].set_xlabel("t [s]")
    for ax in axes[:, col]:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
axes[0][0].set_ylabel("(E − E0) / |E0|")
axes[1][0].set_ylabel("(Jz − Jz0) / |Jz0|")
fig.tight_layout()
fig.savefig(out / "fig17_energy_momentum.png", dpi=110)

fig, ax = plt.subplots(figsize=(9, 4))
for label, style in [("energy-momentum h=0.001", "-"), ("energy-momentum h=0.05", "--")]:
    rows = series[label]
    ax.plot([r[0] for r in rows], [r[3] for r in rows], style, label=label)
ax.set_xlabel("t [s]")
ax.set_ylabel("r1 [m]")
ax.set_title("Fig. 18: r1 against time, h = 0.05 (dashed) and h = 0.001 (solid)")
ax.legend()
fig.tight_layout()
fig.savefig(out / "fig18_r1.png", dpi=110)
