#!/usr/bin/env python3
"""Figure of `mechint reproduce core-convergence`: error against step size, log-log, per method."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "convergence.csv")))
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for method in sorted({r["method"] for r in rows}):
    sel = [r for r in rows if r["method"] == method]
    h = [float(r["h"]) for r in sel]
    axes[0].loglog(h, [float(r["position_error"]) for r in sel], "o-", label=method)
    axes[1].loglog(h, [float(r["energy_error"]) for r in sel], "o-", label=method)
axes[0].set_title("Kepler e = 0.5, 10 periods: max position error")
axes[1].set_title("max energy error")
for ax in axes:
    ax.set_xlabel("h")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
fig.tight_layout()
fig.savefig(out / "convergence.png", dpi=120)
