#!/usr/bin/env python3
"""Figures of `mechint reproduce pattern-evocation` (003 Figs. 3-16): traces of the two masses in
the inertial and the critical frame (3D and xy), the resonant patterns at the thesis's rates and at
ours, a sweep over the frame rate gamma as a grid of frames (and an animated GIF when Pillow is
present), and the reduced coordinates against time. The frames rotate the inertial trace by
R_z(-gamma t), the transform of 003 eq. 3.15."""
import csv
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = Path(sys.argv[1])
results = json.load(open(out / "results.json"))
traces = defaultdict(list)
for r in csv.DictReader(open(out / "traces.csv")):
    traces[(r["pattern"], r["frame"])].append([float(r[k]) for k in ("t", "x1", "y1", "z1", "x2", "y2", "z2")])
patterns = [p["start"] for p in results["patterns"]]


def rotated(rows, gamma):
    """The trace seen from the frame rotating at gamma (003 eq. 3.15)."""
    res = []
    for t, x1, y1, z1, x2, y2, z2 in rows:
        c, s = math.cos(-gamma * t), math.sin(-gamma * t)
        res.append((c * x1 - s * y1, s * x1 + c * y1, z1, c * x2 - s * y2, s * x2 + c * y2, z2))
    return res


def draw_xy(ax, pts, title):
    ax.plot([p[0] for p in pts], [p[1] for p in pts], lw=0.5, label="mass 1")
    ax.plot([p[3] for p in pts], [p[4] for p in pts], lw=0.5, label="mass 2")
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=8)
    ax.tick_params(labelsize=6)


fig = plt.figure(figsize=(12, 4 * len(patterns)))
fig2, axes2 = plt.subplots(len(patterns), 2, figsize=(9, 4.5 * len(patterns)))
for i, name in enumerate(patterns):
    p = results["patterns"][i]
    for j, frame in enumerate(["inertial", "critical"]):
        rows = traces[(name, frame)]
        ax = fig.add_subplot(len(patterns), 2, 2 * i + j + 1, projection="3d")
        ax.plot([r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows], lw=0.4)
        ax.plot([r[4] for r in rows], [r[5] for r in rows], [r[6] for r in rows], lw=0.4)
        title = f"{name}, {frame} frame" + (f" (γ = {p['gamma_c']:.4f})" if frame == "critical" else "")
        ax.set_title(title, fontsize=9)
        draw_xy(axes2[i][j], [r[1:] for r in rows], title)
fig.tight_layout()
fig.savefig(out / "traces.png", dpi=100)
fig2.tight_layout()
fig2.savefig(out / "traces_xy.png", dpi=100)

n_res = max(len(p["resonances"]) for p in results["patterns"])
fig, axes = plt.subplots(2 * len(patterns), n_res, figsize=(3 * n_res, 6 * len(patterns)))
for i, name in enumerate(patterns):
    rows = traces[(name, "inertial")]
    for j, r in enumerate(results["patterns"][i]["resonances"]):
        draw_xy(axes[2 * i][j], rotated(rows, r["source_gamma"]), f"{name} D{r['symmetry']}: thesis γ = {r['source_gamma']}")
        draw_xy(axes[2 * i + 1][j], rotated(rows, r["found_gamma"]), f"{name} D{r['symmetry']}: ours γ = {r['found_gamma']:.4f}")
fig.tight_layout()
fig.savefig(out / "resonances.png", dpi=100)

gammas = [0.25 + 0.2 * k for k in range(16)]
for name in patterns:
    rows = traces[(name, "inertial")]
    fig, axes = plt.subplots(4, 4, figsize=(12, 12))
    for ax, g in zip(axes.flat, gammas):
        draw_xy(ax, rotated(rows, g), f"{name}, γ = {g:.2f}")
    fig.tight_layout()
    fig.savefig(out / f"sweep_{name}.png", dpi=80)
    plt.close(fig)

try:
    from matplotlib.animation import FuncAnimation, PillowWriter

    rows = traces[(patterns[0], "inertial")]
    fig, ax = plt.subplots(figsize=(5, 5))
    frames = [0.2 + 0.05 * k for k in range(60)]

    def frame(k):
        ax.clear()
        draw_xy(ax, rotated(rows, frames[k]), f"{patterns[0]}, γ = {frames[k]:.2f} rad/s")
        ax.set_xlim(-7, 7)
        ax.set_ylim(-7, 7)

    FuncAnimation(fig, frame, frames=len(frames)).save(out / "sweep_pattern-1.gif", writer=PillowWriter(fps=6))
except Exception as err:  # Pillow missing: the grids above still show the sweep
    print(f"animation skipped: {err}")

red = defaultdict(list)
for r in csv.DictReader(open(out / "reduced.csv")):
    red[r["pattern"]].append((float(r["t"]), float(r["r1"]), float(r["r2"]), float(r["theta"])))
fig, axes = plt.subplots(len(patterns), 1, figsize=(10, 3.2 * len(patterns)))
for ax, name in zip(axes, patterns):
    rows = red[name]
    for k, lab in [(1, "r1 [m]"), (2, "r2 [m]"), (3, "θ [rad]")]:
        ax.plot([r[0] for r in rows], [r[k] for r in rows], lw=0.7, label=lab)
    ax.set_title(f"{name}: reduced coordinates against time (003 Figs. 7, 11, 16)", fontsize=9)
    ax.legend(fontsize=7)
axes[-1].set_xlabel("t [s]")
fig.tight_layout()
fig.savefig(out / "reduced.png", dpi=100)
