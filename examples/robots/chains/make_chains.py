#!/usr/bin/env python3
"""Writes the 3D pendulum chains of the benchmarks (bench/bench_urdf.cpp, bench/dart_step.py):
chain-N.urdf, N links of 10 cm hanging from a fixed base, joint k revolute about y (k odd) or x
(k even) — a chain that moves in 3D — each link a uniform rod of 0.1 kg with its full inertia.

    examples/robots/chains/make_chains.py [N ...]      # default 10 30 100
"""
import os
import sys

LENGTH, MASS, RADIUS = 0.1, 0.1, 0.01


def chain(links):
    across = MASS * (3 * RADIUS ** 2 + LENGTH ** 2) / 12.0
    along = MASS * RADIUS ** 2 / 2.0
    out = ['<?xml version="1.0"?>',
           f'<!-- {links} links of {LENGTH} m and {MASS} kg, joints about y and x in turn '
           '(examples/robots/chains/make_chains.py) -->',
           f'<robot name="chain-{links}">', '  <link name="base"/>']
    for k in range(1, links + 1):
        parent = "base" if k == 1 else f"link{k - 1}"
        origin = "0 0 0" if k == 1 else f"0 0 {-LENGTH!r}"
        axis = "0 1 0" if k % 2 else "1 0 0"
        out += [f'  <joint name="joint{k}" type="revolute">',
                f'    <parent link="{parent}"/>', f'    <child link="link{k}"/>',
                f'    <origin xyz="{origin}"/>', f'    <axis xyz="{axis}"/>',
                '    <limit lower="-3.14" upper="3.14" effort="10" velocity="10"/>', '  </joint>',
                f'  <link name="link{k}">', '    <inertial>',
                f'      <origin xyz="0 0 {-LENGTH / 2!r}"/>', f'      <mass value="{MASS!r}"/>',
                f'      <inertia ixx="{across!r}" ixy="0" ixz="0" iyy="{across!r}" iyz="0" izz="{along!r}"/>',
                '    </inertial>', '  </link>']
    out.append('</robot>')
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for n in [int(a) for a in sys.argv[1:]] or [10, 30, 100]:
        with open(os.path.join(here, f"chain-{n}.urdf"), "w", encoding="utf-8") as f:
            f.write(chain(n))
