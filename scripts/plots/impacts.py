#!/usr/bin/env python3
"""Figures of `mechint reproduce impacts` (004 Fig. 1, Fig. 2 left and right)."""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])


def read(name):
    return list(csv.DictReader(open(out / name)))


# Fig. 1: H and both H~ against time, per start and integrator (values minus their start value).
rows = read("fig1.csv")
starts = ["fig1-left", "fig1-right"]
methods = ["vi-trapezoid", "stormer-verlet"]
fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True)
for i, start in enumerate(starts):
    for k, method in enumerate(methods):
        sel = [r for r in rows if r["start"] == start and r["method"] == method]
        t = [float(r["t"]) for r in sel]
        ax = axes[i][k]
        for col, label in [("energy", "H"), ("htilde_sv", "H~ SV (004's formula)"), ("htilde_trap", "H~ trapezoid")]:
            v = [float(r[col]) for r in sel]
            ax.plot(t, [x - v[0] for x in v], label=label, lw=0.9)
        ax.set_title(f"{start}, {method}, h = 5.8e-2")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
for ax in axes[1]:
    ax.set_xlabel("t [s]")
fig.tight_layout()
fig.savefig(out / "fig1.png", dpi=110)

# Fig. 2 left: H against time for the three laws, impact times of CTEC dashed.
rows = read("fig2_left.csv")
imp = read("impacts.csv")
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
for ax, method in zip(axes, methods):
    for law in ["dtec", "ctec", "mhc"]:
        label = f"{method}/{law}"
        sel = [r for r in rows if r["variant"] == label]
        ax.plot([float(r["t"]) for r in sel], [float(r["energy"]) for r in sel], label=law.upper(), lw=1)
    for r in imp:
        if r["variant"] == f"{method}/ctec":
            ax.axvline(float(r["time"]), color="k", ls="--", lw=0.7)
    ax.set_title(f"H with the wall, {method}, h = 5.8e-2 (dashed: CTEC impacts)")
    ax.set_xlabel("t [s]")
    ax.grid(True, alpha=0.3)
    ax.legend()
axes[0].set_ylabel("H")
fig.tight_layout()
fig.savefig(out / "fig2_left.png", dpi=110)

# Fig. 2 right: L2 error against h, log-log, per integrator.
rows = read("fig2_right.csv")
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
by = defaultdict(list)
for r in rows:
    by[r["variant"]].append(r)
for ax, method in zip(axes, methods):
    for variant, sel in sorted(by.items()):
        if not variant.startswith(method):
            continue
        h = [float(r["h"]) for r in sel]
        ax.loglog(h, [float(r["l2_error_benchmark"]) for r in sel], "o-", label=variant.split("/", 1)[1] + " vs benchmark")
        ax.loglog(h, [float(r["l2_error_reference"]) for r in sel], "x:", color=ax.lines[-1].get_color(), alpha=0.6)
    hs = [float(r["h"]) for r in by[f"{method}/ctec"]]
    ax.loglog(hs, [0.5 * (x / hs[0]) ** 2 for x in hs], "k--", lw=0.8, label="slope 2")
    ax.set_title(f"L2 trajectory error, {method} (x: against the hybrid reference)")
    ax.set_xlabel("h")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
axes[0].set_ylabel("L2 error of (th1, th2)")
fig.tight_layout()
fig.savefig(out / "fig2_right.png", dpi=110)
