#!/usr/bin/env bash
# Set-up and main job: installs what is missing, builds the mechint command (and the Python module)
# and reproduces every
# experiment of the source documents into ./out (or the directory given as first argument).
# Shares ./build and its configuration with ./scripts/test.sh: whichever runs second recompiles nothing
# the first compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# Compiles through ccache, its cache in build/ccache: the test python_wheel builds the same objects
# from a copy of the sources in build/ and finds them there (docs/python.md, "The test python_wheel").
ccache="env;CCACHE_DIR=$PWD/build/ccache;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=1;CCACHE_DEPEND=1;CCACHE_INODECACHE=1;CCACHE_SLOPPINESS=pch_defines,time_macros;CCACHE_IGNOREHEADERS=CMakeFiles/mechint_app.dir/cmake_pch.hxx;ccache"
# The same configuration as in scripts/test.sh: keep the two lines identical.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMECHINT_BUILD_TESTS=ON -DMECHINT_BUILD_BENCHMARKS=OFF \
      -DCMAKE_CXX_COMPILER_LAUNCHER="$ccache"
# The command and the Python module (build/python/mechint, docs/python.md).
cmake --build build --target mechint _mechint -j "$(nproc)"
./build/bin/mechint reproduce all --out "${1:-out}"
