#!/usr/bin/env python3
"""DART 6.12's own step (Debian's python3-dartpy: articulated-body forward dynamics and a
semi-implicit Euler step) on the URDFs bench/bench_urdf.cpp steps with mechint, for the table of
docs/performance.md ("Robots"). Each robot in a World of its own, its root welded to the world,
h = 1 ms, from the same deflected start; the median of 5 runs of 2000 steps, in µs per step and
per degree of freedom. The Python call of World.step costs about a microsecond of its own; it is
measured (an empty world) and subtracted.

    python3 bench/dart_step.py            # run from the source tree
"""
import os
import statistics
import time

import dartpy as dart

ROBOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "robots")
CASES = [("double_pendulum", "double-pendulum.urdf", {"shoulder": 0.5}),
         ("arm7", "arm7.urdf", {"joint2": 0.5, "joint4": -1.0}),
         ("torso", "torso.urdf", {"left_shoulder": 0.5, "right_elbow": -0.5}),
         ("chain_10", "chains/chain-10.urdf", {"joint1": 0.5}),
         ("chain_30", "chains/chain-30.urdf", {"joint1": 0.5}),
         ("chain_100", "chains/chain-100.urdf", {"joint1": 0.5})]


def world_of(path, start):
    import re
    import tempfile
    text = re.sub(r"<visual>.*?</visual>", "", open(path, encoding="utf-8").read(), flags=re.S)
    with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as f:
        f.write(text)
    options = dart.utils.DartLoaderOptions()
    options.mDefaultRootJointType = dart.utils.DartLoaderRootJointType.FIXED
    loader = dart.utils.DartLoader()
    loader.setOptions(options)
    skeleton = loader.parseSkeleton(f.name)
    os.unlink(f.name)
    for name, value in start.items():
        skeleton.getDof(name).setPosition(value)
    world = dart.simulation.World()
    world.setTimeStep(0.001)
    world.addSkeleton(skeleton)
    return world, skeleton.getNumDofs()


def time_steps(world, steps=2000, runs=5):
    samples = []
    for _ in range(runs):
        begin = time.perf_counter()
        for _ in range(steps):
            world.step()
        samples.append((time.perf_counter() - begin) / steps)
    return statistics.median(samples)


def main():
    empty = dart.simulation.World()
    overhead = time_steps(empty)
    print(f"empty world step (Python call): {overhead * 1e6:.2f} us")
    print("robot, dofs, us_per_step, us_per_dof")
    for name, file, start in CASES:
        world, dofs = world_of(os.path.join(ROBOTS, file), start)
        cost = max(time_steps(world) - overhead, 0.0)
        print(f"{name}, {dofs}, {cost * 1e6:.2f}, {cost * 1e6 / dofs:.3f}")


if __name__ == "__main__":
    main()
