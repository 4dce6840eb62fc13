#!/usr/bin/env python3
"""Model files of any size, measured with the command line (docs/performance.md, "Model files of
any size"): the pendulum chain written as a model file in three forms (bench/chain_model_files.py:
relative angles, absolute angles, Cartesian with one constraint per link) at 10, 30 and 100 links,
against the built-in `pendulum-chain`.

For each form and size:
  cold compile   wall time of `mechint check`-free first run into an empty cache (read, generate,
                 compile, load, one step), and the compiler's peak memory (the generated source
                 compiled again alone under /usr/bin/time, with the plugin's flags);
  step           CPU time per step of vi-midpoint at h = 0.01, from two run lengths (so that start-up
                 cancels), beside the built-in's from the same start;
  trajectory     the largest difference of the joint angles from the built-in's at t = 10 (absolute
                 angles and Cartesian positions converted to joint angles).

usage: model_file_chains.py [MECHINT] [LINKS ...]   (default build/bin/mechint, 10 30 100)
"""
import csv
import io
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from chain_model_files import chain  # noqa: E402

MECHINT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "bin", "mechint")
SIZES = [int(x) for x in sys.argv[2:]] or [10, 30, 100]
FLAGS = ["-x", "c", "-std=c99", "-O1", "-fPIC", "-shared", "-fvisibility=hidden", "-w"]


def run(args, env=None):
    """CPU seconds (user + system of mechint and its children), wall seconds, stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run([MECHINT] + args, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"mechint {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, r.stdout


def last_row(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    return {k: float(v) for k, v in rows[-1].items()}


def joint_angles(form, row, n):
    if form == "relative":
        return [row[f"th{k}"] for k in range(1, n + 1)]
    if form == "absolute":
        a = [row[f"a{k}"] for k in range(1, n + 1)]
    else:
        a, x0, y0 = [], 0.0, 0.0
        for k in range(1, n + 1):
            x, y = row[f"x{k}"], row[f"y{k}"]
            a.append(math.atan2(x - x0, -(y - y0)))
            x0, y0 = x, y
    return [a[0]] + [a[k] - a[k - 1] for k in range(1, n)]


def step_cost(system, extra, n, env):
    """CPU seconds per step from runs of T1 and T2 seconds (start-up cancels)."""
    t1, t2 = (2.0, 12.0) if n <= 30 else (1.0, 4.0)
    best = []
    for t_end in (t1, t2):
        cpu = min(run(["run", system, "--method", "vi-midpoint", "--h", "0.01", "--t-end", str(t_end),
                       "--output-every", str(t_end), "--out", os.devnull] + extra, env)[0] for _ in range(3))
        best.append(cpu)
    return (best[1] - best[0]) / ((t2 - t1) / 0.01)


def main():
    work = tempfile.mkdtemp(prefix="mechint-chains-")
    print("| form | links | cold compile (wall) | compiler peak memory | step, model file | step, built-in | ratio "
          "| max joint-angle difference at t = 10 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    builtin_steps = {}
    for form in ("relative", "absolute", "cartesian"):
        for n in SIZES:
            path = os.path.join(work, f"{form}-{n}.toml")
            with open(path, "w") as f:
                f.write(chain(form, n))
            cache = tempfile.mkdtemp(prefix="cache-", dir=work)
            env = dict(os.environ, MECHINT_CACHE_DIR=cache)
            _, cold, _ = run(["run", path, "--t-end", "0.01", "--out", os.devnull, "--quiet"], env)
            source = [f for f in os.listdir(cache) if f.endswith(".cpp")][0]
            r = subprocess.run(["/usr/bin/time", "-f", "%M", "c++"] + FLAGS + [os.path.join(cache, source), "-o",
                               os.path.join(work, "alone.so")], capture_output=True, text=True)
            memory_mb = int(r.stderr.strip().splitlines()[-1]) / 1024
            step = step_cost(path, [], n, env)
            if n not in builtin_steps:
                builtin_steps[n] = step_cost("pendulum-chain", ["--set", f"links={n}"], n, env)
            grid = ["--method", "vi-midpoint", "--h", "0.01", "--t-end", "10", "--output-every", "10"]
            file_row = last_row(run(["run", path] + grid, env)[2])
            builtin_row = last_row(run(["run", "pendulum-chain", "--set", f"links={n}"] + grid, env)[2])
            a, b = joint_angles(form, file_row, n), joint_angles("relative", builtin_row, n)
            difference = max(abs(x - y) for x, y in zip(a, b))
            print(f"| {form} | {n} | {cold:.2f} s | {memory_mb:.0f} MB | {step * 1e6:.1f} µs | "
                  f"{builtin_steps[n] * 1e6:.1f} µs | {step / builtin_steps[n]:.2f} | {difference:.1e} |", flush=True)


if __name__ == "__main__":
    main()
