"""Tests of the command line that need a terminal or a browser (tests/CMakeLists.txt registers them
with ctest): MECHINT_EXECUTABLE is the build's mechint, MECHINT_SOURCE_DIR the source tree."""
import os
import subprocess

import pytest

MECHINT = os.environ.get("MECHINT_EXECUTABLE", "")
SOURCE_DIR = os.environ.get("MECHINT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def mechint():
    """Runs mechint with arguments (no shell); returns the CompletedProcess with stdout and stderr."""
    if not MECHINT or not os.access(MECHINT, os.X_OK):
        pytest.fail("MECHINT_EXECUTABLE does not name the built mechint")

    def run(*args, check=True, env=None):
        result = subprocess.run([MECHINT, *args], stdin=subprocess.DEVNULL, capture_output=True,
                                env={**os.environ, **(env or {})}, timeout=600)
        if check and result.returncode != 0:
            raise AssertionError(f"mechint {' '.join(args)} exited {result.returncode}: {result.stderr.decode()}")
        return result

    return run
