"""The progress lines of mechint optimize (Ipopt's iterations) and mechint reproduce (which
experiment of how many, and the runs an experiment has done of those it planned): on a terminal one
updating line, erased before anything else is written and at the end; nothing with --quiet or when
stderr is not a terminal; an interrupt erases it before its one line. The pseudo-terminal helper and
the redraw interval of 0 (a redraw at every update, whatever the machine's speed) are
test_progress.py's."""
import os

from conftest import MECHINT, SOURCE_DIR
from test_progress import CLEAR, run_on_terminal

PROBLEM = os.path.join(SOURCE_DIR, "examples", "problems", "pendulum-swing-up.toml")
EVERY_UPDATE = {"MECHINT_PROGRESS_INTERVAL_MS": "0"}


def progress_lines(seen, start):
    return [part for part in seen.split(b"\r") if part.startswith(start)]


def test_optimize_counts_ipopts_iterations_on_a_terminal(tmp_path):
    out = str(tmp_path / "swing-up")
    status, seen = run_on_terminal(["optimize", PROBLEM, "--out", out], EVERY_UPDATE)
    assert status == 0, seen
    lines = progress_lines(seen, b"mechint optimize ")
    lines = [line for line in lines if b" iterations" in line]
    assert len(lines) >= 3, seen[:500]
    assert all(b"violation" in line and b"(at most 3000 iterations)" in line for line in lines), lines[:3]
    assert any(b"per s" in line for line in lines), lines[:3]
    counts = [int(line.split(b": ")[1].split(b" iterations")[0]) for line in lines]
    assert counts == sorted(counts) and counts[-1] > counts[0]
    # The result's one line starts on a clean line: the progress line was erased before it.
    at = seen.index(b"mechint optimize: cost ")
    assert seen[:at].endswith(CLEAR), seen[-300:]
    assert seen.endswith(b"\n") and seen.count(b"\n") == 1


def test_optimize_quiet_and_verbose_draw_no_line(tmp_path):
    quiet, seen = run_on_terminal(["optimize", PROBLEM, "--quiet"], EVERY_UPDATE)
    assert quiet == 0, seen
    assert seen == b""
    # --verbose shows Ipopt's own log (on standard output) instead of the line.
    verbose, seen = run_on_terminal(["optimize", PROBLEM, "--verbose"], EVERY_UPDATE)
    assert verbose == 0, seen
    assert seen == b""


def test_optimize_without_a_terminal_leaves_stderr_empty(mechint):
    result = mechint("optimize", PROBLEM, env=EVERY_UPDATE)
    assert result.stderr == b""
    assert b'"converged": true' in result.stdout


def test_reproduce_shows_the_experiment_and_its_runs_on_a_terminal(tmp_path):
    status, seen = run_on_terminal(["reproduce", "impacts", "--out", str(tmp_path / "impacts")], EVERY_UPDATE)
    assert status == 0, seen
    lines = progress_lines(seen, b"mechint reproduce [1/1] impacts: ")
    assert len(lines) >= 10, seen[:800]
    assert all(b" of 68 runs" in line for line in lines), lines[:3]
    assert any(b"per s" in line and b"left" in line for line in lines), lines[:3]
    done = [int(line.split(b"% ")[1].split(b" of ")[0]) for line in lines]
    assert done == sorted(done) and done[-1] == 68
    # The log's lines are whole: each starts on a clean line (the progress line erased first).
    log = [part for part in seen.replace(b"\r\n", b"\n").split(b"\n") if part]
    for stage in (b"  Fig. 1: smooth runs", b"  Fig. 2 left: the wall, h = 5.8e-2"):
        assert any(line.endswith(stage) for line in log), log
        at = seen.index(stage)
        assert seen[:at].endswith(b"\n") or seen[:at].endswith(CLEAR), seen[at - 200:at]
    # Nothing of the line is left at the end: after the last line of the log, it was erased.
    tail = seen[seen.rfind(b"\n") + 1:]
    assert tail == b"" or tail.endswith(CLEAR), tail


def test_reproduce_quiet_and_without_a_terminal_show_the_log_alone(mechint, tmp_path):
    # rigid-body counts its step sizes, and is quick.
    quiet, seen = run_on_terminal(["reproduce", "rigid-body", "--quiet", "--out", str(tmp_path / "quiet")],
                                  EVERY_UPDATE)
    assert quiet == 0, seen
    assert b"\r" not in seen.replace(b"\r\n", b"\n") and b"\x1b" not in seen
    assert seen.startswith(b"[1/1] rigid-body -> ")
    result = mechint("reproduce", "rigid-body", "--out", str(tmp_path / "piped"), env=EVERY_UPDATE)
    # stderr carries the experiment's log (which experiment, its stages), never a progress line.
    assert b"\r" not in result.stderr and b"\x1b" not in result.stderr
    assert result.stderr.startswith(b"[1/1] rigid-body -> ")
    # Not quiet, on a terminal, the same experiment counts its step sizes.
    status, seen = run_on_terminal(["reproduce", "rigid-body", "--out", str(tmp_path / "shown")], EVERY_UPDATE)
    assert status == 0, seen
    assert progress_lines(seen, b"mechint reproduce [1/1] rigid-body: 100.0%  4 of 4 step sizes"), seen[-400:]


def test_an_interrupted_reproduce_erases_its_line_before_its_message(tmp_path):
    status, seen = run_on_terminal(["reproduce", "impacts", "--out", str(tmp_path / "impacts")], EVERY_UPDATE,
                                   interrupt_when=b"mechint reproduce [1/1] impacts: ")
    # An interrupt that arrives after the last run (a fast machine) finds the experiment finished.
    assert status in (0, 130), seen[-300:]
    if status == 130:
        at = seen.index(b"mechint: interrupted")
        assert seen[:at].endswith(CLEAR), seen[-300:]
