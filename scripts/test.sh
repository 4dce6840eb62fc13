#!/usr/bin/env bash
# Set-up and test suite: installs what is missing, builds the library, command and tests, and runs
# every test with ctest, among them install_and_consumer (scripts/test-install.sh: cmake --install
# into a temporary prefix, then examples/consumer built against it). Shares ./build and its
# configuration with ./scripts/reproduce.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# The same configuration as in scripts/reproduce.sh: keep the two lines identical.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMECHINT_BUILD_TESTS=ON -DMECHINT_BUILD_BENCHMARKS=OFF
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
