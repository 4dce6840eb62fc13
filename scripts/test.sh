#!/usr/bin/env bash
# Set-up and test suite: installs what is missing, builds the library, command and tests, and runs
# every test with ctest, among them install_and_consumer (scripts/test-install.sh: cmake --install
# into a temporary prefix, then examples/consumer built against it). Shares ./build and its
# configuration with ./scripts/reproduce.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# Compiles through ccache, its cache in build/ccache: the test python_wheel builds the same objects
# from a copy of the sources in build/ and finds them there (docs/python.md, "The test python_wheel").
ccache="env;CCACHE_DIR=$PWD/build/ccache;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=1;CCACHE_DEPEND=1;CCACHE_INODECACHE=1;CCACHE_SLOPPINESS=pch_defines,time_macros;CCACHE_IGNOREHEADERS=CMakeFiles/mechint_app.dir/cmake_pch.hxx;ccache"
# The same configuration as in scripts/reproduce.sh: keep the two lines identical.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMECHINT_BUILD_TESTS=ON -DMECHINT_BUILD_BENCHMARKS=OFF \
      -DCMAKE_CXX_COMPILER_LAUNCHER="$ccache"
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
