#!/usr/bin/env python3
"""Figures of `mechint reproduce chaos-maps`: the Hénon–Heiles MEGNO maps over the section x = 0 with
the Poincaré sections at the same energies beneath them (henon_heiles.png), and the MEGNO map of the
Earth–Moon restricted three-body problem over initial positions (three_body.png). ⟨Y⟩ is clipped to
[0, 8] with 2 (quasi-periodic) marked on the colour bar; the forbidden region is left blank,
collisions are drawn in red and other failed members (Newton, a rejected step) in black."""
import csv
import json
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

out = Path(sys.argv[1])
results = json.load(open(out / "results.json"))
rows = list(csv.DictReader(open(out / "maps.csv")))
sections = list(csv.DictReader(open(out / "sections.csv")))
CLIP = (0.0, 8.0)


def grid(name):
    """The map's members as 2-D arrays over its (u, v) grid: ⟨Y⟩ (NaN but where the run finished) and
    the kind of each member; u along the columns, v along the rows."""
    sel = [r for r in rows if r["map"] == name]
    us = np.unique([float(r["u"]) for r in sel])
    vs = np.unique([float(r["v"]) for r in sel])
    megno = np.full((len(vs), len(us)), np.nan)
    kind = np.full(megno.shape, "", dtype=object)
    for r in sel:
        i, j = np.searchsorted(vs, float(r["v"])), np.searchsorted(us, float(r["u"]))
        if r["kind"] == "ok":
            megno[i, j] = float(r["megno"])
        kind[i, j] = r["kind"]
    return us, vs, megno, kind


def edges(centres):
    """Cell edges of evenly spaced cell centres."""
    d = centres[1] - centres[0] if len(centres) > 1 else 1.0
    return np.append(centres - d / 2, centres[-1] + d / 2)


def draw_map(ax, name):
    us, vs, megno, kind = grid(name)
    mesh = ax.pcolormesh(edges(us), edges(vs), np.clip(megno, *CLIP), cmap="viridis", vmin=CLIP[0], vmax=CLIP[1],
                         shading="flat")
    for k, colour in (("collision", "tab:red"), ("failed", "black")):
        if (kind == k).any():
            ax.pcolormesh(edges(us), edges(vs), np.where(kind == k, 1.0, np.nan), cmap=ListedColormap([colour]),
                          shading="flat")
    return mesh


def colorbar(fig, mesh, axes):
    bar = fig.colorbar(mesh, ax=axes, shrink=0.9)
    bar.set_label("MEGNO ⟨Y⟩ (clipped to [0, 8])")
    bar.set_ticks([0, 2, 4, 6, 8])
    bar.ax.axhline(2.0, color="white", linewidth=2)
    return bar


def save(fig, name):
    # Through a temporary beside the target: a figure is there whole or not at all.
    tmp = out / (name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, out / name)
    plt.close(fig)


# ---- Hénon–Heiles -----------------------------------------------------------------------------------
hh = sorted(results["henon_heiles"].items(), key=lambda kv: kv[1]["energy"])
fig, axes = plt.subplots(2, len(hh), figsize=(5.2 * len(hh), 9.5), squeeze=False)
mesh = None
for col, (name, info) in enumerate(hh):
    top, bottom = axes[0][col], axes[1][col]
    mesh = draw_map(top, name)
    e = info["energy"]
    top.set_title(f"MEGNO, E = {info['label']}: ⟨Y⟩ > 4 on {100 * info['chaotic_fraction']:.1f} %")
    pts = [r for r in sections if abs(float(r["energy"]) - e) < 1e-12]
    bottom.scatter([float(r["y"]) for r in pts], [float(r["y_dot"]) for r in pts], s=0.15, c="k", linewidths=0)
    bottom.set_title(f"Poincaré section x = 0, ẋ > 0, E = {info['label']}")
    # The energy surface's edge on the section: ẏ² = 2E − y² + 2y³/3.
    y = np.linspace(*info["y_range"], 400)
    edge = np.sqrt(np.maximum(2 * e - y**2 + 2 * y**3 / 3, 0.0))
    for ax in (top, bottom):
        ax.plot(y, edge, "k-", linewidth=0.6)
        ax.plot(y, -edge, "k-", linewidth=0.6)
        ax.set_xlim(*info["y_range"])
        ax.set_ylim(-info["y_dot_max"], info["y_dot_max"])
        ax.set_xlabel("y")
        ax.set_ylabel("ẏ")
colorbar(fig, mesh, axes[0].tolist())
fig.suptitle("Hénon–Heiles: MEGNO maps (top; black: failed runs, blank: outside the energy surface) "
             "and Poincaré sections (bottom)")
save(fig, "henon_heiles.png")

# ---- restricted three-body problem --------------------------------------------------------------------
tb = results["three_body"]
mu, c, w = tb["mu"], tb["jacobi"], tb["half_width"]
fig, ax = plt.subplots(figsize=(7.5, 6.3))
mesh = draw_map(ax, "three-body")
x, y = np.meshgrid(np.linspace(-w, w, 600), np.linspace(-w, w, 600))
r1, r2 = np.hypot(x + mu, y), np.hypot(x - 1 + mu, y)
ax.contour(x, y, x**2 + y**2 + 2 * (1 - mu) / r1 + 2 * mu / r2, levels=[c], colors="k", linewidths=0.6)
ax.plot([-mu], [0], "o", color="tab:blue", markersize=6, markeredgecolor="k", label="Earth")
ax.plot([1 - mu], [0], "o", color="lightgrey", markersize=4, markeredgecolor="k", label="Moon")
ax.set_aspect("equal")
ax.set_xlabel("x (rotating frame)")
ax.set_ylabel("y")
others = tb["failed"] - tb["collisions"]
ax.set_title(f"Earth–Moon, C = {c:g}: ⟨Y⟩ > 4 on {100 * tb['chaotic_fraction']:.1f} %\n"
             f"{tb['collisions']} collisions (red), {others} other failures (black), blank: forbidden")
ax.legend(loc="lower left", fontsize=8)
colorbar(fig, mesh, ax)
save(fig, "three_body.png")
