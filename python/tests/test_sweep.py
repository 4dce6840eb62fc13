"""mechint.sweep: summary.csv of `mechint sweep` as a pandas DataFrame, for a file or a dict."""

import math
import os

import pandas  # python3-pandas, installed by scripts/install-deps.sh: mechint.sweep returns a DataFrame
import pytest
from scipy.stats import qmc  # python3-scipy: the reference Sobol sequence

import mechint
from conftest import run_cli

AMPLITUDES = {
    "system": "harmonic-oscillator",
    "method": "vi-trapezoid",
    "h": 0.05,
    "t_end": 3.0,
    "vary": {"q": [0.5, 1.0, 2.0]},
    "sweep": {"record": ["final", "energy_error", "steps"]},
}


def test_dict_sweep_is_the_command_lines_summary(tmp_path):
    frame = mechint.sweep(AMPLITUDES, threads=2)
    assert list(frame.columns) == ["member", "q", "q_final", "energy_error", "steps", "status", "exit"]
    # Störmer–Verlet from rest: q_n = q0 cos(n θ), cos θ = 1 - h²/2, exactly.
    theta = 2.0 * math.asin(0.05 / 2.0)
    for q0, q_final in zip(frame["q"], frame["q_final"]):
        assert q_final == pytest.approx(q0 * math.cos(60 * theta), rel=1e-13)
    assert list(frame["status"]) == ["ok"] * 3
    # The same sweep from a file through the command line: the same values.
    sweep_file = tmp_path / "amplitudes.toml"
    sweep_file.write_text(mechint._mechint._toml_text(AMPLITUDES))
    cli = run_cli("sweep", str(sweep_file), "--out", str(tmp_path / "out"))
    assert cli.status == 0, cli.err
    by_command = pandas.read_csv(tmp_path / "out" / "summary.csv")
    assert by_command.equals(frame)


def test_bad_sweep_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="unknown name 'zz'"):
        mechint.sweep(dict(AMPLITUDES, vary={"zz": [1.0]}), out=tmp_path / "out")
    assert not os.path.exists(tmp_path / "out")


def test_sobol_points_are_scipys(tmp_path):
    # Joe & Kuo's direction numbers: the first 2^k points of the unscrambled sequence are the same
    # set as SciPy's (which takes them in Gray-code order).
    names = ["m", "k", "q", "v"]
    frame = mechint.sweep({"system": "harmonic-oscillator", "t_end": 0.01,
                           "vary": {n: {"random": "sobol", "low": 1.0, "high": 2.0, "count": 128} for n in names},
                           "sweep": {"combine": "zip", "seed": 0, "record": ["steps"]}}, threads=1)
    mine = set(tuple(row[n] - 1.0 for n in names) for _, row in frame.iterrows())
    reference = set(tuple(x) for x in qmc.Sobol(d=4, scramble=False).random(128))
    assert mine == reference


def test_trajectories_are_the_members_runs(tmp_path):
    # trajectories = true: each member's rows every output_every are those of System.run with its
    # values, also when the sweep's directory is a temporary one (read before it goes).
    spec = dict(AMPLITUDES, sweep={"record": ["final"], "output_every": 0.5, "trajectories": True})
    frame = mechint.sweep(spec, threads=2)
    trajectories = frame.attrs["trajectories"]
    assert sorted(trajectories) == [0, 1, 2]
    for member, q0 in enumerate(frame["q"]):
        run = mechint.System("harmonic-oscillator", q=q0).run(method="vi-trapezoid", h=0.05, t_end=3.0,
                                                             output_every=0.5).to_pandas()
        assert list(trajectories[member].columns) == list(run.columns)
        assert trajectories[member].equals(run)
    assert len(trajectories[0]) == 7  # t = 0, 0.5, ..., 3
    # Into a directory of one's own: the same files, and trajectories.h5 beside them.
    mechint.sweep(spec, out=tmp_path / "out")
    assert (tmp_path / "out" / "trajectories.h5").stat().st_size > 0
    again = mechint.sweep_trajectories(tmp_path / "out")
    assert all(again[m].equals(trajectories[m]) for m in range(3))
