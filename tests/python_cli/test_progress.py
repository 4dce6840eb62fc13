"""The progress line (app/progress.hpp, docs/trustworthy-runs.md "Progress"): shown on a terminal,
absent otherwise, silenced by --quiet. A pseudo-terminal stands for the terminal. The redraw
interval is set to 0 (MECHINT_PROGRESS_INTERVAL_MS) so that whether a line appears does not depend
on the machine's speed: a redraw is then due at every check, i.e. every 1024 steps."""
import os
import pty
import select
import signal
import subprocess

from conftest import MECHINT

# 10^5 steps: about 100 checks of the progress line.
RUN = ["run", "kepler", "--h", "1e-3", "--t-end", "100", "--output-every", "1"]
CLEAR = b"\r\x1b[K"


# Written by the test through the terminal once mechint has exited: everything mechint wrote comes
# before it. Reading until it arrives (with the terminal's slave end held open, so that the master
# never reports EIO) gets all of mechint's output however late the kernel delivers it; reading until
# EIO after the last writer closed can lose the last lines.
END = b"<end of test>"


def run_on_terminal(args, env, interrupt_when=None):
    """mechint with stderr on a pseudo-terminal; returns (exit status, what the terminal received).
    With interrupt_when, SIGINT is sent once those bytes have been received."""
    master, slave = pty.openpty()
    process = subprocess.Popen([MECHINT, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                               env={**os.environ, **env})
    received = b""
    interrupted = False
    while True:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            received += os.read(master, 65536)
            if interrupt_when is not None and not interrupted and interrupt_when in received:
                process.send_signal(signal.SIGINT)
                interrupted = True
        elif process.poll() is not None:
            break
    status = process.wait(timeout=600)
    os.write(slave, END)
    while END not in received:
        received += os.read(master, 65536)
    os.close(slave)
    os.close(master)
    return status, received[:received.index(END)]


def test_a_run_shows_an_updating_progress_line_on_a_terminal_and_clears_it(tmp_path):
    status, seen = run_on_terminal(RUN + ["--out", str(tmp_path / "k.csv")], {"MECHINT_PROGRESS_INTERVAL_MS": "0"})
    assert status == 0, seen
    lines = [part for part in seen.split(b"\r") if part.startswith(b"mechint run kepler: ")]
    assert len(lines) >= 10, seen[:500]
    assert all(b"% " in line and b" of 100" in line for line in lines), lines[:3]
    assert any(b"per s" in line and b"left" in line for line in lines), lines[:3]
    # Updated in place (no newline) and erased at the end: nothing remains on the terminal.
    assert b"\n" not in seen
    assert seen.endswith(CLEAR)
    # The fractions grow.
    percents = [float(line.split(b": ")[1].split(b"%")[0]) for line in lines]
    assert percents == sorted(percents) and percents[-1] > 50


def test_quiet_silences_it(tmp_path):
    status, seen = run_on_terminal(RUN + ["--quiet", "--out", str(tmp_path / "k.csv")],
                                   {"MECHINT_PROGRESS_INTERVAL_MS": "0"})
    assert status == 0
    assert seen == b""


def test_without_a_terminal_stderr_stays_empty(mechint, tmp_path):
    result = mechint(*RUN, "--out", str(tmp_path / "k.csv"), env={"MECHINT_PROGRESS_INTERVAL_MS": "0"})
    assert result.stderr == b""


def test_a_failure_prints_its_line_on_a_clean_line(tmp_path):
    # /dev/full fails the first write-out of the buffered rows (some 90 rows, 90,000 steps, in):
    # exit 4 after progress lines were drawn; its message must start on a clean line.
    status, seen = run_on_terminal(["run", "kepler", "--h", "1e-3", "--t-end", "1000", "--output-every", "1",
                                    "--out", "/dev/full"], {"MECHINT_PROGRESS_INTERVAL_MS": "0"})
    assert status == 4, seen
    assert b"mechint run kepler: " in seen
    assert b"mechint: error:" in seen
    before = seen[:seen.index(b"mechint: error:")]
    assert before.endswith(CLEAR), seen[-300:]


def test_an_interrupt_erases_the_line_before_its_message(tmp_path):
    # 10^8 steps: far longer than the test waits. Interrupted once its progress line is seen.
    status, seen = run_on_terminal(["run", "kepler", "--h", "1e-4", "--t-end", "1e4", "--output-every", "1",
                                    "--out", str(tmp_path / "k.csv")], {"MECHINT_PROGRESS_INTERVAL_MS": "0"},
                                   interrupt_when=b"mechint run kepler: ")
    assert status == 130, seen[-300:]
    at = seen.index(b"mechint: interrupted")
    assert seen[:at].endswith(CLEAR), seen[-300:]
    assert list(tmp_path.iterdir()) == []
