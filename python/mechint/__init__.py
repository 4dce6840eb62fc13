"""mechint: variational integrators for mechanical systems, from Python (DESIGN §8, docs/python.md).

    import mechint
    system = mechint.System("double-pendulum", th1=0.8)
    traj = system.run(h=0.01, t_end=10.0)            # the same numbers as `mechint run`
    traj.t, traj["energy"], traj.columns             # NumPy arrays, column names

    integ = system.integrator("vi-midpoint", h=0.01)  # stepping under your own loop
    integ.step(); integ.q, integ.p, integ.t, integ.energy

Systems are the built-in ones (``mechint.systems()``), model files (``System("my/model.toml")``) and
SymPy Lagrangians (``Model.from_sympy``). ``optimize`` solves optimal control problems (DMOC),
``reproduce`` runs the experiments of the source documents. Bad input raises ``ValueError`` with the
command line's message; a run that cannot continue raises ``NumericalFailure``; Ctrl-C stops a run
with ``KeyboardInterrupt``.
"""

import json as _json
import operator as _operator
import os as _os
import sys as _sys
import tempfile as _tempfile

from . import _errors, _prefix
from ._errors import DomainError, ImpactFailure, NewtonFailure, NumericalFailure, RejectedStep
from ._animation import Animation
from ._trajectory import Trajectory

# A model file is compiled into a library that resolves mechint's own functions against the code
# that loads it: this module's symbols must be global (RTLD_GLOBAL) for it to find them.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _mechint
finally:
    _sys.setdlopenflags(_flags)

_mechint._set_prefix(_os.path.normpath(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)),
                                                     _prefix.RELATIVE_PREFIX)))
_mechint._register_errors(_errors)

Integrator = _mechint.Integrator

__all__ = ["System", "Model", "Trajectory", "Animation", "Integrator", "OptimalControlResult", "systems", "methods",
           "experiments", "optimize", "sweep", "sweep_trajectories", "reproduce", "check", "NumericalFailure", "NewtonFailure",
           "RejectedStep", "ImpactFailure", "DomainError"]


def systems():
    """The names of the built-in systems (``mechint list`` shows them with their methods)."""
    return list(_mechint.systems())


def methods():
    """Every method of mechint: a dict name -> one-line summary."""
    return dict(_mechint.methods())


def experiments():
    """The experiments ``reproduce`` runs: a dict name -> one-line summary."""
    return dict(_mechint.experiments())


def _setting_text(name, value):
    """A setting as the command line's --set text: numbers exactly (repr round-trips), names as they are."""
    if isinstance(value, bool):
        raise ValueError(f"setting {name!r}: give a number or a name, not {value!r}")
    if isinstance(value, str):
        return value
    try:
        return str(_operator.index(value))
    except TypeError:
        pass
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        raise ValueError(f"setting {name!r}: {value!r} is not a number or a name") from None


def _settings_text(settings):
    return {name: _setting_text(name, value) for name, value in settings.items()}


class System:
    """A mechanical system: a built-in one by name, or a model file (a path ending in ``.toml``).

    ``settings`` are what ``mechint run --set NAME=VALUE`` sets: parameters, initial values, named
    starts, structural choices (``links=10``, ``coordinates="angles"``), controls held constant, and
    options of the method (``newton_tol=1e-12``). Unknown names and values out of range raise
    ValueError with the command line's message.
    """

    def __init__(self, name_or_model_file, **settings):
        self._system = _mechint._System(_os.fspath(name_or_model_file), _settings_text(settings))

    @property
    def name(self):
        """The system's name."""
        return self._system.name

    @property
    def summary(self):
        """One line on the system."""
        return self._system.summary

    @property
    def default_method(self):
        """The method ``run`` uses when none is given."""
        return self._system.default_method

    @property
    def controls(self):
        """The names of the control inputs (empty: none)."""
        return list(self._system.controls)

    @property
    def settings(self):
        """The settings given, as the command line's text."""
        return dict(self._system.settings)

    @property
    def parameters(self):
        """The settable names: a dict name -> {default, description, kind, choices}."""
        return {p["name"]: {k: v for k, v in p.items() if k != "name"} for p in self._system.parameters()}

    @property
    def methods(self):
        """The methods the system offers with its settings."""
        return list(self._system.methods())

    def method_options(self, method=None):
        """The options of ``method`` (default: the system's): a dict name -> {default, description}."""
        return {o["name"]: {k: v for k, v in o.items() if k != "name"}
                for o in self._system.method_options(method or "")}

    def run(self, method=None, h=None, t_end=10.0, output_every=0.0, controls=None, **options):
        """Runs the system as ``mechint run`` does and returns a Trajectory.

        method: a method the system offers (default: its default method, ``default_method``).
        h: the step (default: the model file's ``h``, else 0.01); t_end: the end time, a multiple of h;
        output_every: the spacing of the rows (0: every step).
        controls: for a system with control inputs, their values over time: a CSV file's path (as
        ``--controls``) or a dict ``{"t": times, name: values, ...}``, each row holding from its time on.
        options: options of the method (``rtol=1e-10``, ``form="position"``, ...).

        The GIL is released during the run; Ctrl-C stops it with KeyboardInterrupt.
        """
        controls_file, controls_t, controls_columns = _controls_arguments(controls)
        columns, rows = self._system.run(method or "", None if h is None else float(h), float(t_end),
                                         float(output_every), _settings_text(options), controls_file,
                                         controls_t, controls_columns)
        return Trajectory(columns, rows, system=self)

    def integrator(self, method=None, h=None, **options):
        """An Integrator of ``method`` with step ``h`` (defaults as for ``run``), started from the
        system's initial values, for stepping under your own loop::

            integ = system.integrator("vi-midpoint", h=0.01)
            while integ.t < 5.0:
                integ.set_controls([controller(integ.q, integ.velocity)])   # systems with controls
                integ.step()
        """
        return self._system.integrator(method or "", None if h is None else float(h), _settings_text(options))

    def __repr__(self):
        return f"System({self.name!r})"


def _controls_arguments(controls):
    """The controls of ``run`` as the extension takes them: (a CSV file's path, or ""; for a dict,
    its times and its other columns as float arrays, passed as they are)."""
    import numpy as np

    if controls is None:
        return "", None, []
    if isinstance(controls, (str, bytes, _os.PathLike)):
        return _os.fsdecode(controls), None, []
    if not isinstance(controls, dict) or "t" not in controls:
        raise ValueError("controls: give a CSV file's path or a dict {'t': times, name: values, ...}")

    def column(name):
        try:
            values = np.asarray(controls[name], dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"controls: {name!r} is not an array of numbers") from None
        if values.ndim > 1:
            raise ValueError(f"controls: {name!r} must be one-dimensional, got shape {values.shape}")
        return values.reshape(-1).tolist()

    return "", column("t"), [(str(name), column(name)) for name in controls if name != "t"]


class OptimalControlResult:
    """A solved optimal control problem (``mechint.optimize``).

    Attributes: ``results`` (the dict of results.json: cost, status, iterations, ...), ``cost``,
    ``t`` (the nodes), ``q`` (nodes x coordinates), ``u`` (steps x controls, the control of each
    step), ``energy`` (per node), ``coordinates`` and ``controls`` (names).
    """

    def __init__(self, solved):
        self.results = _json.loads(solved["results_json"])
        self.cost = self.results["cost"]
        self.t, self.q, self.u, self.energy = solved["t"], solved["q"], solved["u"], solved["energy"]
        self.coordinates, self.controls = list(solved["coordinates"]), list(solved["controls"])

    def __repr__(self):
        return f"OptimalControlResult(cost={self.cost!r}, status={self.results.get('status')!r})"


def optimize(problem, out=None, verbose=False):
    """Solves an optimal control problem by DMOC, as ``mechint optimize`` (DESIGN §7).

    problem: the path of a problem file (TOML), or a dict with the same keys
    (``{"model": "cart-pole", "horizon": 2.0, "steps": 40, "start": {...}, "goal": {...}, ...}``).
    out: a directory to write trajectory.csv, controls.csv, results.json, report.md into (replaced
    whole), or None. Returns an OptimalControlResult; an unsolvable problem raises NumericalFailure.
    """
    out_dir = "" if out is None else _os.fspath(out)
    if isinstance(problem, dict):
        solved = _mechint._optimize("", _mechint._toml_text(problem), "problem", out_dir, bool(verbose))
    else:
        solved = _mechint._optimize(_os.fspath(problem), "", "", out_dir, bool(verbose))
    return OptimalControlResult(solved)


# The deepest nesting of a TOML input (model_file/toml_input.hpp, kMaxTomlDepth): a deeper dict is
# refused here, before Python's own recursion limit, with the message a file would get.
_MAX_TOML_DEPTH = 64


def _toml_value(value, depth=1):
    """A TOML value: a number, a string, a boolean, a list or an inline table, in the dict's order.
    depth: the value's nesting (a top-level key's value is 1)."""
    if depth > _MAX_TOML_DEPTH:
        raise ValueError(f"the sweep is nested deeper than {_MAX_TOML_DEPTH} levels of dicts and lists "
                         "(a sweep needs a few; does it hold itself?)")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(_toml_key(k) + " = " + _toml_value(v, depth + 1) for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, depth + 1) for v in value) + "]"
    if isinstance(value, str):
        return _json.dumps(value, ensure_ascii=False)  # a TOML basic string: the same escapes
    if hasattr(value, "__index__"):  # int, numpy integers
        return str(_operator.index(value))
    return repr(float(value))  # shortest text that reads back exactly; inf and nan are TOML's too


def _toml_key(key):
    key = str(key)
    bare = key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key)
    return key if bare else _json.dumps(key, ensure_ascii=False)


def _sweep_toml(sweep):
    """The text of a sweep file from a dict, keys in the dict's order (the order of [vary] is the
    grid's order and the Sobol dimensions'; mechint._mechint._toml_text would sort them)."""
    lines, tables = [], []
    for key, value in sweep.items():
        (tables if isinstance(value, dict) else lines).append((key, value))
    text = "".join(_toml_key(k) + " = " + _toml_value(v) + "\n" for k, v in lines)
    for name, table in tables:
        text += "[" + _toml_key(name) + "]\n"
        text += "".join(_toml_key(k) + " = " + _toml_value(v, 2) + "\n" for k, v in table.items())
    return text


def sweep(sweep, threads=None, out=None):
    """Runs a sweep, as ``mechint sweep SWEEP.toml`` (DESIGN §9, docs/sweeps.md), and returns its
    summary.csv as a pandas DataFrame (one row per member).

    sweep: the path of a sweep file (TOML), or a dict with the same keys (``{"system": "kepler",
    "h": 0.01, "t_end": 10.0, "vary": {"vy": {"from": 0.8, "to": 1.2, "count": 5}}}``, taken in
    the dict's order, which is the grid's; a relative model path in a dict is relative to the
    current directory). threads: how many members run at
    once (None: one per hardware thread). out: the directory for summary.csv, sweep.json and the
    journal (new, empty, or that of the same sweep, which it finishes); None: a temporary one,
    removed after reading. A bad sweep file raises ValueError before any member runs; a member
    that fails is a row with its status and exit, not an exception — unless every member fails for
    one and the same reason, which raises as their single run would (docs/sweeps.md). A sweep with
    ``trajectories = true`` also gives ``frame.attrs["trajectories"]``: ``sweep_trajectories(out)``.
    """
    try:
        import pandas as _pandas
    except ImportError as e:
        raise ImportError("mechint.sweep returns a pandas DataFrame and needs pandas "
                          "(Debian: apt-get install python3-pandas)") from e
    if threads is not None and (int(threads) != threads or threads < 1):
        raise ValueError("threads must be a whole number of at least 1, got %r" % (threads,))
    count = 0 if threads is None else int(threads)

    def run(out_dir):
        if isinstance(sweep, dict):
            _mechint._sweep("", _sweep_toml(sweep), "sweep", out_dir, count)
        else:
            _mechint._sweep(_os.fspath(sweep), "", "", out_dir, count)
        # Text cells stay text (status), empty cells are missing values (a failed member's numbers).
        frame = _pandas.read_csv(_os.path.join(out_dir, "summary.csv"))
        if _os.path.isdir(_os.path.join(out_dir, "trajectories")):
            frame.attrs["trajectories"] = sweep_trajectories(out_dir)  # read before a temporary out goes
        return frame

    if out is not None:
        return run(_os.fspath(out))
    with _tempfile.TemporaryDirectory(prefix="mechint-sweep-") as scratch:
        return run(_os.path.join(scratch, "out"))


def sweep_trajectories(out):
    """The trajectories of a sweep run with ``trajectories = true`` into the directory ``out``
    (docs/sweeps.md): a dict member -> DataFrame, each the member's rows every ``output_every`` and
    at ``t_end`` — what ``mechint run`` with its values writes. A member that failed before its first
    row has none; one that failed later has its rows up to the failure."""
    import pandas as _pandas
    directory = _os.path.join(_os.fspath(out), "trajectories")
    found = {}
    for name in sorted(_os.listdir(directory)):
        if name.startswith("member-") and name.endswith(".csv"):
            # round_trip: the 17 digits read back as the very doubles the run computed
            found[int(name[len("member-"):-len(".csv")])] = _pandas.read_csv(_os.path.join(directory, name),
                                                                           float_precision="round_trip")
    return found


def reproduce(name, out):
    """Runs the experiment ``name`` (see ``experiments()``; "all" for every one) into the directory
    ``out``, as ``mechint reproduce NAME --out OUT``."""
    _mechint._reproduce(name, _os.fspath(out))


def check(model_file):
    """What mechint derives from a model file (``mechint check``), without compiling it."""
    return _mechint._check(_os.fspath(model_file))


from ._sympy import Model  # noqa: E402  (needs System)
