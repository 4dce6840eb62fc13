"""The animated page of a run (docs/animations.md), for Jupyter and for files."""

import html as _html


class Animation:
    """One self-contained HTML page that draws a run moving (``mechint view`` writes the same).

    In Jupyter it displays itself (in an iframe, so that its script and style stay apart from the
    notebook's); ``save(path)`` writes it to a file. ``html`` is the page's text.
    """

    def __init__(self, html):
        self.html = html

    def _repr_html_(self):
        return ('<iframe srcdoc="' + _html.escape(self.html, quote=True) +
                '" style="width: 100%; height: 1100px; border: 0"></iframe>')

    def save(self, path):
        """Writes the page to ``path`` as ``mechint view --out`` does: a regular file whole or not at all
        (a temporary beside it, then a rename); ``"-"``, a device, a FIFO or a terminal written through,
        never replaced. Raises ``OSError`` when it cannot be written, ``ValueError`` for a directory."""
        from ._files import write_text

        write_text(path, self.html, "save")

    def __repr__(self):
        return f"Animation({len(self.html)} bytes of HTML; .save(path) or display in Jupyter)"
