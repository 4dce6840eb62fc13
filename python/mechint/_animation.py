"""The animated page of a run (docs/animations.md), for Jupyter and for files."""

import html as _html
import os
import tempfile


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
        """Writes the page to ``path`` whole or not at all (a temporary beside it, then a rename)."""
        path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(path))
        descriptor, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".partial",
                                                 dir=directory)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                out.write(self.html)
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def __repr__(self):
        return f"Animation({len(self.html)} bytes of HTML; .save(path) or display in Jupyter)"
