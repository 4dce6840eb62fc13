"""The result of a run: its columns as NumPy arrays."""

import numpy as np


class Trajectory:
    """The rows of a run, by column (the columns of ``mechint run``'s CSV, DESIGN §4).

    ``traj.t`` is the time column, ``traj["energy"]`` any other column as a contiguous float64 array,
    ``traj.columns`` their names in order; ``len(traj)`` is the number of rows. The values are the
    command line's to the last bit (its CSV writes every double exactly).
    """

    def __init__(self, columns, rows, system=None):
        self.columns = tuple(columns)
        self._system = system  # the System that ran it, for animate()
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != len(self.columns):
            raise ValueError("rows must be a 2-d array with one column per name")
        # One array per column, each contiguous: traj["x"] is a view of this block.
        self._data = np.ascontiguousarray(rows.T)
        self._data.flags.writeable = False
        self._index = {name: i for i, name in enumerate(self.columns)}

    @property
    def t(self):
        """The output times."""
        return self["t"]

    def __getitem__(self, name):
        try:
            return self._data[self._index[name]]
        except KeyError:
            raise KeyError(f"no column {name!r} (columns: {', '.join(self.columns)})") from None

    def __contains__(self, name):
        return name in self._index

    def __len__(self):
        return self._data.shape[1]

    def __repr__(self):
        return f"Trajectory({len(self)} rows; columns {', '.join(self.columns)})"

    def to_numpy(self):
        """All rows as one (rows x columns) array, in the order of ``columns``."""
        return self._data.T

    def to_pandas(self):
        """A pandas DataFrame of the columns (pandas must be importable)."""
        try:
            import pandas
        except ImportError as error:
            raise ImportError("Trajectory.to_pandas needs pandas (Debian: apt-get install python3-pandas)") from error
        return pandas.DataFrame({name: self[name] for name in self.columns})

    def to_csv(self, path):
        """Writes the CSV ``mechint run --out`` writes (every double exactly, %.17g), as it writes it: a
        regular file whole or not at all, ``"-"``, a device or a FIFO written through, never replaced."""
        import io

        from ._files import write_text

        text = io.StringIO()
        text.write(",".join(self.columns) + "\n")
        np.savetxt(text, self.to_numpy(), fmt="%.17g", delimiter=",")
        write_text(path, text.getvalue(), "to_csv")

    def animate(self, title=None):
        """The run drawn moving: an Animation, which displays itself in Jupyter and has ``.save(path)``.

        The same page as ``mechint run --animate`` (docs/animations.md): the system's drawing (a
        built-in's, or a model file's ``[draw]``) with the settings of the System that ran it,
        play/pause, a time slider, speed, a trail, and energy and momenta against time.
        """
        from ._animation import Animation

        if self._system is None:
            raise ValueError("animate() needs a Trajectory returned by System.run (it draws with the system's geometry)")
        page = self._system._system.animation_page(list(self.columns), self.to_numpy(),
                                                   title or f"mechint: {self._system.name}")
        return Animation(page)

    def plot(self, *columns, ax=None, x="t"):
        """Plots columns (default: the coordinates and the energy) against ``x`` with matplotlib.

        Returns the axes. ``ax``: axes to draw into (default: a new figure).
        """
        import matplotlib.pyplot as plt

        if not columns:
            columns = tuple(c for c in self.columns if c != x and not c.startswith("lambda"))
        for name in columns:
            self[name]  # a KeyError naming the columns before anything is drawn
        if ax is None:
            _, ax = plt.subplots()
        for name in columns:
            ax.plot(self[x], self[name], label=name)
        ax.set_xlabel(x)
        ax.legend()
        return ax
