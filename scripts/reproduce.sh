#!/usr/bin/env bash
# Set-up and main job: installs what is missing, builds the mechint command and reproduces every
# experiment of the source documents into ./out (or the directory given as first argument).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DMECHINT_BUILD_TESTS=OFF -DMECHINT_BUILD_BENCHMARKS=OFF
cmake --build build/release --target mechint -j "$(nproc)"
./build/release/mechint reproduce all --out "${1:-out}"
