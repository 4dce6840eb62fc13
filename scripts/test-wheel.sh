#!/usr/bin/env bash
# The Python package as a wheel (DESIGN §13, docs/python.md "Installing as a package"): a clean copy
# of the source tree (the files git knows, no build directory), `python3 -m build --no-isolation
# --wheel` on it, the wheel installed into a fresh virtual environment (--system-site-packages:
# Debian's NumPy, SymPy, pytest) by `pip install --no-index`, and the Python tests run there against
# the installed package and its command line. Run by ctest (test python_wheel) and so by
# ./scripts/test.sh.
#
# The copy lies inside the build tree (default ./build) so that the wheel's CMake build, configured
# with the same compiler launcher as that tree (ccache with the source tree as its base directory,
# scripts/test.sh), finds the objects that tree compiled in the cache: the same sources at the same
# relative paths with the same flags. Without a launcher it still passes, after compiling everything.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
work="$build/wheel-test"
rm -rf "$work"
mkdir -p "$work/src"
trap 'rm -rf "$work"' EXIT
started=$SECONDS
unset PYTHONPATH  # the package must come from the virtual environment alone

fail() { echo "test-wheel: $*" >&2; exit 1; }
cache_entry() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }

# Debian's interpreter (python3-build, python3-setuptools, python3-wheel, python3-venv), the one the
# build tree's module was built for.
python="$(cache_entry Python3_EXECUTABLE)"
[ -x "$python" ] || python=/usr/bin/python3

# The clean copy: tracked files and new ones git does not ignore, as a clone with the working tree's
# edits would have them.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) \
    | tar -xf - -C "$work/src"
else
  tar -C "$src" --exclude='./build*' --exclude=./out -cf - . | tar -xf - -C "$work/src"
fi
[ -f "$work/src/pyproject.toml" ] && [ ! -e "$work/src/build" ] || fail "the copy of the source tree is not clean"

launcher="$(cache_entry CMAKE_CXX_COMPILER_LAUNCHER)"
if [ -n "$launcher" ]; then export CMAKE_CXX_COMPILER_LAUNCHER="$launcher"; else unset CMAKE_CXX_COMPILER_LAUNCHER; fi
(cd "$work/src" && "$python" -m build --no-isolation --wheel --outdir "$work/dist") >"$work/build.log" 2>&1 \
  || { tail -n 60 "$work/build.log"; fail "python3 -m build --no-isolation --wheel failed"; }
wheels=("$work"/dist/mechint-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel in $work/dist"
wheel="${wheels[0]}"
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB) in $((SECONDS - started)) s"

# What the module and the command line need at run time, all in the wheel.
"$python" - "$wheel" <<'EOF' || fail "the wheel lacks files"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["mechint/__init__.py", "mechint/_trajectory.py", "mechint/_prefix.py", "mechint/bin/mechint",
        "mechint/lib/mechint/libmechint_hdf5.so", "mechint/share/mechint/model_compiler.json",
        "mechint/share/mechint/plots/core_convergence.py"]
missing = [n for n in need if n not in names]
missing += [] if any(n.startswith("mechint/_mechint.") and n.endswith(".so") for n in names) else ["mechint/_mechint*.so"]
missing += [] if any(n.endswith(".data/scripts/mechint") for n in names) else ["the script mechint"]
if missing:
    sys.exit("not in the wheel: " + ", ".join(missing))
EOF

"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --no-index --disable-pip-version-check "$wheel" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "pip install --no-index of the wheel failed"; }
package="$(cd "$work" && "$work/venv/bin/python" -c "import mechint, os; print(os.path.dirname(mechint.__file__))")"
case "$package" in "$work/venv/"*) ;; *) fail "mechint imported from $package, not from the virtual environment";; esac
"$work/venv/bin/mechint" list >/dev/null || fail "the installed command mechint does not run"

# The Python suite of the ctest python, against the installed package; the command line it compares
# with is the wheel's own (MECHINT_BUILD_DIR: the package directory is its prefix).
(cd "$work" && MECHINT_BUILD_DIR="$package" MECHINT_CACHE_DIR="$work/model-cache" PYTHONDONTWRITEBYTECODE=1 \
   "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$work/src/python/tests") \
  || fail "the Python tests failed against the installed wheel"
echo "test-wheel: wheel built, installed and tested in $((SECONDS - started)) s"
