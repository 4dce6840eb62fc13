"""The progress line of mechint sweep (docs/sweeps.md): members done, their rate and the time left on
a terminal, erased at the end; nothing with --quiet. And an interrupted sweep (SIGINT, exit 130)
keeps its finished members: run again, it ends with the summary an uninterrupted sweep writes."""
import os
import subprocess

from conftest import MECHINT
from test_progress import CLEAR, run_on_terminal

SWEEP = """system = "pendulum-chain"
h = 0.01
t_end = 10.0
[set]
links = 3
[vary]
th1 = { from = 0.1, to = 1.5, count = 60 }
[sweep]
record = ["final", "energy_error", "steps"]
"""


def write_sweep(tmp_path):
    path = tmp_path / "chain.toml"
    path.write_text(SWEEP)
    return str(path)


def test_a_sweep_counts_its_members_on_a_terminal(tmp_path):
    sweep = write_sweep(tmp_path)
    status, seen = run_on_terminal(["sweep", sweep, "--out", str(tmp_path / "out"), "--threads", "1"],
                                   {"MECHINT_PROGRESS_INTERVAL_MS": "0"})
    assert status == 0, seen
    lines = [part for part in seen.split(b"\r") if part.startswith(b"mechint sweep ")]
    assert len(lines) >= 5, seen[:500]
    assert all(b" of 60 members" in line for line in lines), lines[:3]
    assert any(b"per s" in line and b"left" in line for line in lines), lines[:3]
    assert b"\n" not in seen
    assert seen.endswith(CLEAR)
    done = [int(line.split(b"% ")[1].split(b" of ")[0]) for line in lines]
    assert done == sorted(done)

    quiet, seen = run_on_terminal(["sweep", sweep, "--out", str(tmp_path / "quiet"), "--quiet"],
                                  {"MECHINT_PROGRESS_INTERVAL_MS": "0"})
    assert quiet == 0
    assert seen == b""


def test_an_interrupted_sweep_finishes_when_run_again(tmp_path):
    sweep = write_sweep(tmp_path)
    reference = subprocess.run([MECHINT, "sweep", sweep, "--out", str(tmp_path / "reference")], capture_output=True)
    assert reference.returncode == 0, reference.stderr
    out = str(tmp_path / "out")
    # Interrupted once its progress line shows a finished member.
    status, seen = run_on_terminal(["sweep", sweep, "--out", out, "--threads", "1"],
                                   {"MECHINT_PROGRESS_INTERVAL_MS": "0"}, interrupt_when=b"  1 of 60 members")
    assert status in (0, 130), seen
    if status == 130:
        assert b"interrupted" in seen.lower(), seen[-300:]
        assert not os.path.exists(os.path.join(out, "summary.csv"))
    again = subprocess.run([MECHINT, "sweep", sweep, "--out", out], capture_output=True)
    assert again.returncode == 0, again.stderr

    def summary(directory):  # no cpu_s recorded: the whole file compares
        return (tmp_path / directory / "summary.csv").read_text()

    assert summary("out") == summary("reference")
