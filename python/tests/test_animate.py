"""Trajectory.animate(): the page of `mechint run --animate` for a run from Python (docs/animations.md)."""

import html
import json
import math

import numpy as np
import pytest

import mechint
from conftest import run_cli


def page_data(html):
    start = html.index("const DATA = ") + len("const DATA = ")
    end = html.index(";\n", start)
    return json.loads(html[start:end])


def test_the_page_draws_the_run_with_the_systems_geometry(tmp_path):
    system = mechint.System("double-pendulum", wall=1, l1=1.3, l2=0.6)
    traj = system.run(t_end=2)
    animation = traj.animate()
    data = page_data(animation.html)
    assert data["t"] == list(traj.t)
    th1, th2 = traj["th1"], traj["th2"]
    positions = np.array(data["positions"]).reshape(len(traj), 2, 2)
    assert np.allclose(positions[:, 0, 0], 1.3 * np.sin(th1), rtol=0, atol=1e-12)
    assert np.allclose(positions[:, 1, 1], -1.3 * np.cos(th1) - 0.6 * np.cos(th1 + th2), rtol=0, atol=1e-12)
    assert len(data["walls"]) == 1
    # The same page as the command line's, but for the title.
    cli_page = tmp_path / "cli.html"
    result = run_cli("run", "double-pendulum", "--set", "wall=1", "--set", "l1=1.3", "--set", "l2=0.6", "--t-end", "2",
                     "--out", str(tmp_path / "cli.csv"), "--animate", str(cli_page))
    assert result.status == 0, result.err
    cli_data = page_data(cli_page.read_text())
    assert cli_data["positions"] == data["positions"]


def test_it_displays_in_jupyter_and_saves(tmp_path):
    animation = mechint.System("kepler").run(t_end=1).animate(title="orbit")
    shown = animation._repr_html_()
    prefix, suffix = '<iframe srcdoc="', '" style="width: 100%; height: 1100px; border: 0"></iframe>'
    assert shown.startswith(prefix) and shown.endswith(suffix)
    srcdoc = shown[len(prefix):-len(suffix)]
    assert '"' not in srcdoc and "<" not in srcdoc  # escaped into the attribute
    assert html.unescape(srcdoc) == animation.html
    path = tmp_path / "k.html"
    animation.save(path)
    assert path.read_text() == animation.html
    assert [p.name for p in tmp_path.iterdir()] == ["k.html"]
    assert page_data(animation.html)["title"] == "orbit"


def test_a_trajectory_without_its_system_cannot_be_drawn():
    traj = mechint.Trajectory(["t", "q"], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="System.run"):
        traj.animate()


def test_rows_that_are_not_a_runs_are_refused_as_view_refuses_them():
    # A Trajectory built from a run's rows, edited: t going back, a value that is not finite. The
    # page would play a motion the run never had; `mechint view` refuses such a CSV the same way.
    system = mechint.System("kepler")
    traj = system.run(t_end=1)
    rows = traj.to_numpy()
    backwards = mechint.Trajectory(traj.columns, np.vstack([rows[:5], rows[2:3]]), system)
    with pytest.raises(ValueError, match=r"row 6: t = 0\.020*\d* is not after the previous row's t = 0\.040*"):
        backwards.animate()
    broken = rows.copy()
    broken[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"row 4: column 2 \('x'\) is not a finite number"):
        mechint.Trajectory(traj.columns, broken, system).animate()


def test_a_sympy_model_draws_from_its_draw_section():
    import sympy

    x, th, xd, thd = sympy.symbols("x th x_dot th_dot")
    l = sympy.Symbol("l")
    # a unit cart and a unit bob at (x + l sin th, -l cos th)
    lagrangian = (2 * xd ** 2 + 2 * l * xd * thd * sympy.cos(th) + l ** 2 * thd ** 2) / 2 + 9.81 * l * sympy.cos(th)
    bob = [x + l * sympy.sin(th), -l * sympy.cos(th)]
    model = mechint.Model.from_sympy(lagrangian, [x, th], parameters={l: 0.8}, initial={th: 0.5, xd: 0.2},
                                     name="sympy-cart-pole",
                                     draw={"points": {"cart": [x, 0], "bob": bob}, "fixed": {"origin": [0, 0]},
                                           "links": [["cart", "bob"]]})
    assert "[draw]" in model.text
    assert "2 moving points, 1 fixed, 1 link, in 2D" in model.check()
    traj = model.system().run(t_end=1)
    data = page_data(traj.animate().html)
    positions = np.array(data["positions"]).reshape(len(traj), 2, 2)
    bob = data["names"].index("bob")
    assert np.allclose(positions[:, bob, 0], traj["x"] + 0.8 * np.sin(traj["th"]), rtol=0, atol=1e-12)
    assert np.allclose(positions[:, bob, 1], -0.8 * np.cos(traj["th"]), rtol=0, atol=1e-12)


def _device_node(path, minor):
    """A private character device of Linux's memory devices (1, minor): 3 null, 7 full; None when
    this process may not make one (not root, a nodev file system)."""
    import os
    import stat

    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        os.close(os.open(path, os.O_WRONLY))
    except OSError:
        return None
    return path


def test_save_writes_through_a_device_never_replacing_it(tmp_path):
    import os
    import stat

    animation = mechint.System("kepler").run(t_end=1).animate()
    trajectory = mechint.System("kepler").run(t_end=1)
    null, full = _device_node(tmp_path / "null", 3), _device_node(tmp_path / "full", 7)
    if null is None or full is None:
        pytest.skip("cannot make device nodes here (needs root, a file system without nodev)")
    animation.save(null)
    trajectory.to_csv(null)
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    with pytest.raises(OSError, match="No space left on device"):
        animation.save(full)
    with pytest.raises(OSError, match="No space left on device"):
        trajectory.to_csv(full)
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]


def test_save_reaches_a_fifos_reader(tmp_path):
    import os
    import threading

    animation = mechint.System("kepler").run(t_end=1).animate()
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    # The reader's end is open before save() (without blocking: no writer yet), so save() finds its
    # reader at once; a thread drains it while save() writes, then what is left: no timing.
    descriptor = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    chunks = []
    done = threading.Event()

    def drain():
        import select

        while True:
            finished = done.is_set()
            select.select([descriptor], [], [], 0.1)
            os.set_blocking(descriptor, False)
            try:
                while chunk := os.read(descriptor, 1 << 16):
                    chunks.append(chunk)
            except BlockingIOError:
                pass
            if finished:
                return

    reader = threading.Thread(target=drain)
    reader.start()
    animation.save(fifo)
    done.set()
    reader.join()
    os.close(descriptor)
    assert b"".join(chunks).decode("utf-8") == animation.html
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.fifo"]


def test_save_refuses_a_directory_and_leaves_a_failed_file_untouched(tmp_path):
    animation = mechint.System("kepler").run(t_end=1).animate()
    with pytest.raises(ValueError, match="is a directory"):
        animation.save(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        animation.save(tmp_path / "missing" / "k.html")
    assert list(tmp_path.iterdir()) == []
