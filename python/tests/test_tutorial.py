"""The tutorial of docs/python.md runs, and the page shows the script's own code."""

import os
import re
import subprocess
import sys

from conftest import SOURCE_DIR

SCRIPT = os.path.join(SOURCE_DIR, "examples", "python", "tutorial.py")


def test_the_tutorial_runs_and_draws_its_figures(tmp_path):
    done = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    for figure in ("kepler.png", "elastic-pendulum.png", "swing-up.png"):
        assert (tmp_path / figure).stat().st_size > 10000, figure
    assert "angular momentum error" in done.stdout


def test_the_page_shows_the_scripts_code():
    page = open(os.path.join(SOURCE_DIR, "docs", "python.md"), encoding="utf-8").read()
    script = open(SCRIPT, encoding="utf-8").read()
    tutorial = page.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", tutorial, re.S)
    assert blocks, "no python blocks in the tutorial section"
    for block in blocks:
        assert block in script, block[:80]
