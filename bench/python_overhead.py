"""What Python costs on top of the C++ (issue: Python module; docs/python.md, docs/performance.md).

1. A run of 10^6 steps: mechint.System(...).run(...) timed around the call, against the same run of
   the command line timed as a process (its start-up included, a few milliseconds), in turn, with
   the median of the pairwise ratios. Two output densities: two rows (the step alone), and a row
   every 100 steps (10^4 rows: CSV text for the command line, a buffer of doubles for Python).
2. integrator.step() called from a Python loop, against integrator.step(n) (the same steps in one
   call): the difference per step is the cost of calling step() from Python.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [BUILD_DIR]
"""
import os
import statistics
import subprocess
import sys
import time

import mechint

BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build")
MECHINT = os.path.join(BUILD, "bin", "mechint")
REPEATS = 5

RUNS = [  # name, settings, h, t_end: 10^6 steps each
    ("kepler", {}, 1e-4, 100.0),
    ("pendulum-chain", {"links": 5}, 1e-5, 10.0),
]


def cli_seconds(name, settings, h, t_end, every):
    args = [MECHINT, "run", name, "--h", repr(h), "--t-end", repr(t_end), "--output-every", repr(every),
            "--out", "/dev/null"]
    for k, v in settings.items():
        args += ["--set", f"{k}={v}"]
    start = time.perf_counter()
    subprocess.run(args, check=True)
    return time.perf_counter() - start


def python_seconds(name, settings, h, t_end, every):
    system = mechint.System(name, **settings)
    start = time.perf_counter()
    traj = system.run(h=h, t_end=t_end, output_every=every)
    seconds = time.perf_counter() - start
    assert len(traj) >= 2
    return seconds


def main():
    print(f"{'run (10^6 steps)':36s} {'rows':>6s} {'CLI s':>8s} {'Python s':>9s} {'Python/CLI':>11s}")
    for name, settings, h, t_end in RUNS:
        for every, rows in ((t_end, 2), (100 * h, 10001)):
            python_seconds(name, settings, h, t_end, every)  # warm-up (a model's first use)
            pairs = []
            for _ in range(REPEATS):
                c = cli_seconds(name, settings, h, t_end, every)
                p = python_seconds(name, settings, h, t_end, every)
                pairs.append((c, p))
            ratio = statistics.median(p / c for c, p in pairs)
            label = name + "".join(f" {k}={v}" for k, v in settings.items()) + f" h={h:g}"
            print(f"{label:36s} {rows:6d} {statistics.median(c for c, _ in pairs):8.3f} "
                  f"{statistics.median(p for _, p in pairs):9.3f} {ratio:11.3f}")

    print()
    print(f"{'integrator.step() from Python':36s} {'step(n) ns':>11s} {'step() ns':>10s} {'overhead ns':>12s}")
    for name, settings, method in (("kepler", {}, "vi-midpoint"), ("harmonic-oscillator", {}, "rk4"),
                                   ("pendulum-chain", {"links": 5}, "vi-midpoint")):
        n = 200000
        inside, outside = [], []
        for _ in range(REPEATS):
            integ = mechint.System(name, **settings).integrator(method, h=1e-4)
            start = time.perf_counter()
            integ.step(n)
            inside.append((time.perf_counter() - start) / n * 1e9)
            integ = mechint.System(name, **settings).integrator(method, h=1e-4)
            step = integ.step
            start = time.perf_counter()
            for _ in range(n):
                step()
            outside.append((time.perf_counter() - start) / n * 1e9)
        a, b = statistics.median(inside), statistics.median(outside)
        label = f"{name} {method}" + "".join(f" {k}={v}" for k, v in settings.items())
        print(f"{label:36s} {a:11.1f} {b:10.1f} {b - a:12.1f}")


if __name__ == "__main__":
    main()
