"""Shared helpers of the Python tests: the command line of the same build, to compare against."""

import os
import subprocess

import numpy as np
import pytest

BUILD_DIR = os.environ.get("MECHINT_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
MECHINT = os.path.join(BUILD_DIR, "bin", "mechint")
SOURCE_DIR = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


class CliRun:
    def __init__(self, status, out, err):
        self.status, self.out, self.err = status, out, err

    def csv(self):
        """(columns, rows x columns array) of the CSV on standard output."""
        lines = self.out.strip().splitlines()
        columns = lines[0].split(",")
        rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]], dtype=np.float64)
        return columns, rows.reshape(len(lines) - 1, len(columns))


def run_cli(*args, timeout=600):
    """Runs the mechint command line; returns its status, standard output and standard error."""
    done = subprocess.run([MECHINT, *args], capture_output=True, text=True, timeout=timeout)
    return CliRun(done.returncode, done.stdout, done.stderr)


def cli_error_line(run):
    """The message of the command line's one error line (after "mechint: error: ")."""
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    prefix = "mechint: error: "
    assert lines[0].startswith(prefix), lines[0]
    return lines[0][len(prefix):]


@pytest.fixture(scope="session")
def cli():
    return run_cli
