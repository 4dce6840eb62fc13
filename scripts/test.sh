#!/usr/bin/env bash
# Set-up and test suite: installs what is missing, builds the library, command and tests, and runs
# every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/test -DCMAKE_BUILD_TYPE=Release -DMECHINT_BUILD_TESTS=ON -DMECHINT_BUILD_BENCHMARKS=OFF
cmake --build build/test -j "$(nproc)"
ctest --test-dir build/test --output-on-failure -j "$(nproc)"
