#!/usr/bin/env python3
"""Figures of `mechint reproduce high-order`: error at t_end against CPU time per problem and method,
the energy error over 1e6 steps of the Kepler orbit, and the phase error over 1e4 periods against CPU
time with rk78's best tolerance and the crossings of the order-8 lines with rk78's marked."""
import csv
import json
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

# Phase error against CPU time (Kepler e = 0.5): the crossings and rk78's best come from results.json,
# where the experiment computed them from the same rows.
phase = list(csv.DictReader(open(out / "phase_error.csv")))
study = json.load(open(out / "results.json")).get("phase_error", {})
fig, ax = plt.subplots(figsize=(7.5, 5))
for method in sorted({r["method"] for r in phase}):
    pts = sorted((float(r["cpu_s"]), float(r["phase_error"])) for r in phase
                 if r["method"] == method and float(r["phase_error"]) > 0 and float(r["cpu_s"]) > 0)
    if not pts:
        continue
    style = "s--" if method in ("dopri5", "rk78") else "o-"
    ax.loglog([p[0] for p in pts], [p[1] for p in pts], style, label=method, markersize=4)
best = study.get("rk78_best")
if best:
    ax.axvline(best["cpu_s"], color="grey", lw=0.7, ls=":")
    ax.axhline(best["phase_error"], color="grey", lw=0.7, ls=":")
    ax.annotate("rk78 best (rtol %g)" % best["tol"], (best["cpu_s"], best["phase_error"]), fontsize=7,
                xytext=(5, 5), textcoords="offset points")
# x: where an order-8 line crosses rk78's; +: where it reaches rk78's best phase error (the dotted level).
for method, c in study.get("comparison", {}).items():
    for x in c.get("crossings", []):
        ax.plot([x["cpu_s"]], [x["phase_error"]], "kx", markersize=8)
    if best and c.get("cpu_s_to_reach_rk78_best") is not None:
        ax.plot([c["cpu_s_to_reach_rk78_best"]], [best["phase_error"]], "k+", markersize=10)
ax.set_title("Kepler e = 0.5, %s periods: phase error at t_end\n"
             "(x: crossing with rk78's line, +: reaches rk78's best)" % study.get("periods", "?"), fontsize=9)
ax.set_xlabel("CPU s")
ax.set_ylabel("phase error (rad)")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out / "phase_error.png", dpi=110)
