#!/usr/bin/env python3
"""Figures of `mechint reproduce three-body`: Jacobi error against time (long runs) and the
work-precision diagram (final-state error and maximum Jacobi error against CPU time)."""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])

rows = list(csv.DictReader(open(out / "jacobi_error.csv")))
fig, ax = plt.subplots(figsize=(7, 4))
for method in dict.fromkeys(r["method"] for r in rows):
    sel = [r for r in rows if r["method"] == method]
    ax.semilogy([float(r["t"]) for r in sel], [float(r["max_jacobi_error"]) for r in sel], label=method)
ax.set_xlabel("t")
ax.set_ylabel("max |C - C0| per window of 10")
ax.set_title("Restricted three-body problem, h = 0.05")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(out / "jacobi_error.png", dpi=120)

rows = list(csv.DictReader(open(out / "work_precision.csv")))
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
for method in dict.fromkeys(r["method"] for r in rows):
    sel = [r for r in rows if r["method"] == method]
    cpu = [float(r["cpu_s"]) for r in sel]
    axes[0].loglog(cpu, [float(r["final_error"]) for r in sel], "o-", label=method)
    axes[1].loglog(cpu, [float(r["max_jacobi_error"]) for r in sel], "o-", label=method)
axes[0].set_ylabel("error of (q, qdot) at t = 50")
axes[1].set_ylabel("max |C - C0| over [0, 50]")
for ax in axes:
    ax.set_xlabel("CPU time [s]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle("Work-precision, reference rk78 at tolerance 1e-14")
fig.tight_layout()
fig.savefig(out / "work_precision.png", dpi=120)
