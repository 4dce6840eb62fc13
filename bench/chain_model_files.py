#!/usr/bin/env python3
"""Planar pendulum chains written as model files the way users write them (docs/model-files.md,
"Definitions"), for measuring the model compiler against the built-in `pendulum-chain`.

Three forms of the same system (unit masses on links of length l, g = 9.81, first link at pi/4 from
the downward vertical, the others hanging from it at rest -- the built-in's default start for
links > 2):

  relative   coordinates th1..thN are the built-in's joint angles: a_k = a_{k-1} + th_k,
             x_k = x_{k-1} + l*sin(a_k), y_k = y_{k-1} - l*cos(a_k), L from the positions' _dot.
  absolute   coordinates a1..aN are the links' absolute angles (a_k = th1 + ... + thk of the
             built-in); x_k, y_k as above. Start: every a_k = pi/4.
  cartesian  coordinates x1, y1, ..., xN, yN with one length constraint per link
             (x_k - x_{k-1})^2 + (y_k - y_{k-1})^2 - l^2 = 0 (a DAE). Start: the positions above.

usage: chain_model_files.py FORM LINKS [OUT]   (writes to stdout without OUT)
"""
import math
import sys


def chain(form: str, links: int) -> str:
    n = links
    lines = []
    if form == "relative":
        coords = [f"th{k}" for k in range(1, n + 1)]
    elif form == "absolute":
        coords = [f"a{k}" for k in range(1, n + 1)]
    elif form == "cartesian":
        coords = [c for k in range(1, n + 1) for c in (f"x{k}", f"y{k}")]
    else:
        raise SystemExit(f"unknown form {form!r}: relative, absolute or cartesian")
    lines.append(f'name = "chain-{form}-{n}"')
    lines.append("coordinates = [" + ", ".join(f'"{c}"' for c in coords) + "]")
    lines.append("parameters = { m = 1.0, l = 1.0, g = 9.81 }")
    if form == "cartesian":
        kinetic = " + ".join(f"x{k}_dot^2 + y{k}_dot^2" for k in range(1, n + 1))
        potential = " + ".join(f"y{k}" for k in range(1, n + 1))
        lines.append(f'lagrangian = "0.5*m*({kinetic}) - m*g*({potential})"')
        constraints = ['"x1^2 + y1^2 - l^2"'] + [
            f'"(x{k} - x{k - 1})^2 + (y{k} - y{k - 1})^2 - l^2"' for k in range(2, n + 1)]
        lines.append("constraints = [" + ", ".join(constraints) + "]")
    else:
        kinetic = " + ".join(f"x{k}_dot^2 + y{k}_dot^2" for k in range(1, n + 1))
        potential = " + ".join(f"y{k}" for k in range(1, n + 1))
        lines.append(f'lagrangian = "0.5*m*({kinetic}) - m*g*({potential})"')
    lines.append("h = 0.01")
    lines.append("")
    lines.append("[initial]")
    s, c = math.sin(math.pi / 4), math.cos(math.pi / 4)
    if form == "relative":
        lines.append("th1 = 0.7853981633974483")
    elif form == "absolute":
        for k in range(1, n + 1):
            lines.append(f"a{k} = 0.7853981633974483")
    else:
        for k in range(1, n + 1):
            lines.append(f"x{k} = {repr(k * s)}")
            lines.append(f"y{k} = {repr(-k * c)}")
    if form != "cartesian":
        lines.append("")
        lines.append("[definitions]")
        for k in range(1, n + 1):
            if form == "relative":
                lines.append(f'a{k} = "{"a%d + " % (k - 1) if k > 1 else ""}th{k}"')
        angle = "a"
        for k in range(1, n + 1):
            px = f"x{k - 1} + " if k > 1 else ""
            py = f"y{k - 1} - " if k > 1 else "-"
            lines.append(f'x{k} = "{px}l*sin({angle}{k})"')
            lines.append(f'y{k} = "{py}l*cos({angle}{k})"')
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    text = chain(sys.argv[1], int(sys.argv[2]))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
