#!/usr/bin/env bash
# Set-up and main job: installs what is missing, builds the mechint command (and the Python module)
# and reproduces every
# experiment of the source documents into ./out (or the directory given as first argument).
# Shares ./build and its configuration with ./scripts/test.sh: whichever runs second recompiles nothing
# the first compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# The same configuration as in scripts/test.sh: keep the two lines identical.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMECHINT_BUILD_TESTS=ON -DMECHINT_BUILD_BENCHMARKS=OFF
# The command and the Python module (build/python/mechint, docs/python.md).
cmake --build build --target mechint _mechint -j "$(nproc)"
./build/bin/mechint reproduce all --out "${1:-out}"
