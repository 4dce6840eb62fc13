"""Files the package writes, through the command line's one writer (app/file_writer.hpp)."""

import os
import sys


def write_text(path, text, what):
    """Writes ``text`` to ``path`` as ``mechint run --out`` does: a regular file whole or not at all (a
    temporary beside it, then a rename); a device, a FIFO or a terminal written through, never replaced;
    ``"-"`` is ``sys.stdout`` (a notebook's output, not the kernel's file descriptor 1). Raises
    ``OSError`` when it cannot be written, ``ValueError`` for a directory or a missing parent."""
    from . import _mechint

    path = os.fsdecode(os.fspath(path))
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    _mechint._write_file(path, text, what)
