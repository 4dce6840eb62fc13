"""Inputs nested without end (model_file/toml_input.hpp, docs/security.md): a file or a dict deeper than
64 levels raises ValueError naming where, instead of killing the interpreter (50 000 dotted keys did);
and a chain of 100 links animates (docs/animations.md)."""

import json

import pytest

import mechint

DEEP_KEY = ".".join(["a"] * 50000) + ".b = 1\n"
DEEP_HEADER = "[" + ".".join(["a"] * 50000) + ".b]\n"
DEEP_ARRAY = "a = " + "[" * 50000 + "]" * 50000 + "\n"
DEEP_INLINE = "a = " + "{b = " * 50000 + "1" + "}" * 50000 + "\n"
DEEP = [DEEP_KEY, DEEP_HEADER, DEEP_ARRAY, DEEP_INLINE]


def nested(depth):
    """A dict nested `depth` levels: {"a": {"a": ... {"a": 1}}}."""
    value = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("text", DEEP, ids=["dotted key", "table header", "array", "inline table"])
def test_deep_files_are_value_errors_in_every_reader(tmp_path, text):
    sweep_file = tmp_path / "deep-sweep.toml"
    sweep_file.write_text('system = "kepler"\nt_end = 0.1\n' + text)
    with pytest.raises(ValueError, match=r"deep-sweep\.toml:3:\d+: nested deeper than 64 levels"):
        mechint.sweep(sweep_file, out=tmp_path / "out")
    problem_file = tmp_path / "deep-problem.toml"
    problem_file.write_text(text)
    with pytest.raises(ValueError, match=r"deep-problem\.toml:1:\d+: nested deeper than 64 levels"):
        mechint.optimize(problem_file)
    model_file = tmp_path / "deep.toml"
    model_file.write_text(text)
    with pytest.raises(ValueError, match=r"deep\.toml:1:\d+: nested deeper than 64 levels"):
        mechint.check(model_file)
    with pytest.raises(ValueError, match=r"deep\.toml:1:\d+: nested deeper than 64 levels"):
        mechint.System(str(model_file))
    assert not (tmp_path / "out").exists()


def test_deep_dicts_are_value_errors():
    # A sweep's dict is written as TOML in Python, a problem's in C++: both bound the nesting.
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        mechint.sweep({"system": "kepler", "t_end": 0.1, "vary": {"vy": [nested(50000)]}})
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        mechint.optimize({"model": "cart-pole", "horizon": 1.0, "steps": 10, "start": nested(50000)})
    itself = {"model": "cart-pole"}
    itself["start"] = itself
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        mechint.optimize(itself)
    # Within the limit a dict reaches the reader, which names what it does not know.
    with pytest.raises(ValueError, match="unknown") as shallow:
        mechint.sweep({"system": "kepler", "t_end": 0.1, "zz": nested(10)})
    assert "nested deeper" not in str(shallow.value)


def test_a_chain_of_100_links_animates():
    traj = mechint.System("pendulum-chain", links=100).run(t_end=0.02, h=0.01)
    page = traj.animate().html
    start = page.index("const DATA = ") + len("const DATA = ")
    data = json.loads(page[start:page.index(";\n", start)])
    assert data["moving"] == 100
    assert len(data["positions"]) == len(traj) * 100 * 2
