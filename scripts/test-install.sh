#!/usr/bin/env bash
# Installs an already built tree (default ./build) into a fresh temporary prefix, checks what was
# installed, then configures, builds and runs examples/consumer against that prefix alone. Builds
# nothing of mechint itself. Run by ctest (test install_and_consumer) and so by ./scripts/test.sh.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/mechint-install-XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

fail() { echo "test-install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install failed"; }
config="$(find "$prefix" -name mechintConfig.cmake -path '*/cmake/mechint/*')"
[ -n "$config" ] || fail "not installed: <libdir>/cmake/mechint/mechintConfig.cmake"
config_dir="$(dirname "$config")"
for f in bin/mechint include/mechint/mechint.hpp include/mechint/system.hpp \
         include/mechint/internal/kernel/model_adapter.txx share/mechint/plots/core_convergence.py \
         share/mechint/model_compiler.json \
         "${config_dir#"$prefix"/}"/mechint{ConfigVersion,Targets,Dependencies}.cmake; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
[ -n "$(find "$prefix" -name 'libmechint.so*' -type f)" ] || fail "not installed: the library libmechint.so"
echo "installed into $prefix: $(find "$prefix" -type f | wc -l) files"
"$prefix/bin/mechint" list >/dev/null || fail "installed mechint list failed"
# The command finds its plot scripts relative to itself: it holds no path of the source tree (in a
# Release build; a debug build keeps assert's __FILE__).
if grep -q "^CMAKE_BUILD_TYPE:STRING=Release$" "$build/CMakeCache.txt" && grep -aqF "$src/" "$prefix/bin/mechint"; then
  fail "bin/mechint holds the source path $src"
fi

# The consumer sees mechint only through the prefix (no package registry, no build tree).
cmake -S "$src/examples/consumer" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/configure.log" \
  || { cat "$work/configure.log"; fail "consumer configure failed"; }
grep -q "^mechint_DIR:PATH=$config_dir\$" "$work/consumer/CMakeCache.txt" \
  || fail "consumer did not find mechint in $prefix"
cmake --build "$work/consumer" -j "$(nproc)" >"$work/build.log" || { cat "$work/build.log"; fail "consumer build failed"; }

# The usage requirements of mechint::mechint: what a consumer needs, none of mechint's own warnings
# or tuning flags (Unix Makefiles keep the compile flags in flags.make).
flags="$work/consumer/CMakeFiles/consumer.dir/flags.make"
if [ -f "$flags" ]; then
  grep -q "EIGEN_STACK_ALLOCATION_LIMIT=0" "$flags" || fail "EIGEN_STACK_ALLOCATION_LIMIT=0 not passed to the consumer"
  grep -q "$prefix/include" "$flags" || fail "the installed include directory not passed to the consumer"
  if grep -E -q -- "-Wall|-Wextra|inline-unit-growth" "$flags"; then fail "mechint's own compile options leak to the consumer"; fi
fi

# The consumer runs a model file and a sweep from the installed tree alone (a copy of the model, so
# that the sweep's relative path and the compiled model's cache are the consumer's own).
cp "$src/examples/models/henon-heiles.toml" "$work/henon-heiles.toml"
printf 'system = "henon-heiles.toml"\nh = 0.01\nt_end = 1.0\n[vary]\ny = [0.0, 0.1, 0.2]\n' >"$work/sweep.toml"
(cd "$work" && MECHINT_CACHE_DIR="$work/model-cache" "$work/consumer/consumer" "$work/henon-heiles.toml" "$work/sweep.toml") \
  >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer check failed"; }

# The README's Library section shows examples/consumer/main.cpp in full: keep them the same.
awk '/^## Library/ {lib = 1} lib && /^```cpp/ {inside = 1; next} inside && /^```/ {exit} inside' "$src/README.md" \
  | diff -u "$src/examples/consumer/main.cpp" - >/dev/null \
  || fail "README.md (Library) no longer shows examples/consumer/main.cpp as it is"
# A model file runs from the installed tree alone: its generated source compiles against the
# installed headers (share/mechint/model_compiler.json names them relative to the prefix).
MECHINT_CACHE_DIR="$work/model-cache" "$prefix/bin/mechint" run "$work/henon-heiles.toml" --t-end 1 \
  >"$work/model.csv" 2>"$work/model.log" || { cat "$work/model.log"; fail "installed mechint cannot run a model file"; }
grep -q "^t,x,y,energy" "$work/model.csv" || fail "model file run from the installed tree wrote no CSV"
if grep -rqF "$src/" "$prefix/share/mechint/model_compiler.json"; then
  fail "the installed model_compiler.json holds the source path $src"
fi
# The Python package: installed where Debian's python3 looks (MECHINT_PYTHON_INSTALL_DIR under the
# prefix), it runs a built-in system and a model file from the installed tree alone.
if grep -q "^MECHINT_BUILD_PYTHON:BOOL=ON$" "$build/CMakeCache.txt"; then
  module="$(find "$prefix" -name '_mechint*.so' -path '*/mechint/*' | head -n 1)"
  [ -n "$module" ] || fail "not installed: the Python module mechint"
  python_dir="$(dirname "$(dirname "$module")")"
  (cd "$work" && PYTHONPATH="$python_dir" MECHINT_CACHE_DIR="$work/model-cache" /usr/bin/python3 -c "
import mechint, sys
assert mechint.__file__.startswith('$prefix/'), mechint.__file__
assert len(mechint.System('kepler').run(t_end=1)) == 101
assert mechint.System('$work/henon-heiles.toml').run(t_end=1).columns[:3] == ('t', 'x', 'y')
") >"$work/python.log" 2>&1 || { cat "$work/python.log"; fail "the installed Python module does not work"; }
fi
echo "test-install: install and consumer OK"
