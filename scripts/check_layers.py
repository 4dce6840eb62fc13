#!/usr/bin/env python3
"""The layers of DESIGN §3 as a check: a file may include only files of its own layer or of the
layers above it. Run by ctest (test layer_includes); exits 1 naming every include that runs upward
and is not among the known ones (scripts/layer_exceptions.txt), and every known one that is gone
(so that the list only shrinks: remove the line).

    scripts/check_layers.py [SOURCE_DIR]      # --write-exceptions rewrites the list from the tree
"""
import pathlib
import re
import sys

# The layers, top (0) to bottom, by the folder a file lives in (the longest prefix wins).
LAYERS = [
    ("core", ["include/mechint/core"]),
    ("model", ["include/mechint/model", "include/mechint/kernel"]),
    ("discrete", ["include/mechint/discrete"]),
    ("solve", ["include/mechint/solve"]),
    ("methods", ["include/mechint/integrate", "src/kernel"]),
    ("run", ["src/app", "src/methods"]),
    ("analysis, optimal", ["include/mechint/analysis", "include/mechint/optimal", "src/optimal"]),
    ("systems", ["include/mechint/systems", "src/systems", "src/model_file", "src/multibody"]),
    ("front ends", ["src/api", "src/experiments", "include/mechint/system.hpp",
                    "include/mechint/system_from_model.txx", "include/mechint/mechint.hpp"]),
    ("programs", ["src/cli", "python/src"]),
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SOURCES = ("*.hpp", "*.cpp", "*.txx", "*.h")


def layer_of(path):
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if path == prefix or path.startswith(prefix + "/"):
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix))
    return None if best is None else best[0]


def resolve(root, includer, name):
    """The repository path of an include, or None for one outside the tree (a test's harness)."""
    candidates = [pathlib.Path("include") / name, pathlib.Path("src") / name,
                  pathlib.Path(includer).parent / name, pathlib.Path("python/src") / name]
    for c in candidates:
        if (root / c).is_file():
            return c.as_posix()
    return None


def upward_includes(root):
    found = set()
    for top in ("include", "src", "python/src"):
        for pattern in SOURCES:
            for file in (root / top).rglob(pattern):
                includer = file.relative_to(root).as_posix()
                own = layer_of(includer)
                if own is None:
                    continue
                for name in INCLUDE.findall(file.read_text(encoding="utf-8", errors="replace")):
                    target = resolve(root, includer, name)
                    if target is None:
                        continue
                    theirs = layer_of(target)
                    if theirs is not None and theirs > own:
                        found.add(f"{includer} -> {target}")
    return found


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    listed_file = root / "scripts" / "layer_exceptions.txt"
    found = upward_includes(root)
    if "--write-exceptions" in sys.argv:
        header = [line for line in listed_file.read_text().splitlines() if line.startswith("#")] \
            if listed_file.exists() else []
        listed_file.write_text("\n".join(header + sorted(found)) + "\n")
        print(f"{len(found)} upward includes written to {listed_file}")
        return 0
    listed = {line.strip() for line in listed_file.read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    new, gone = sorted(found - listed), sorted(listed - found)
    for line in new:
        includer, target = line.split(" -> ")
        print(f"upward include: {line} ({LAYERS[layer_of(includer)][0]} includes "
              f"{LAYERS[layer_of(target)][0]}, a layer below it; DESIGN §3)")
    for line in gone:
        print(f"no longer upward: {line}: remove it from scripts/layer_exceptions.txt")
    print(f"layers: {len(found)} known upward includes remain (scripts/layer_exceptions.txt), "
          f"{len(new)} new, {len(gone)} gone")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
