#!/usr/bin/env bash
# Installs the Debian packages mechint needs, only those missing. Run as root on Debian 12.
set -euo pipefail

packages=(
  cmake g++ make
  libeigen3-dev        # linear algebra
  libceres-dev         # ceres/jet.h: forward-mode automatic differentiation
  libboost-dev         # Boost.Odeint baselines
  libsundials-dev      # SUNDIALS IDA: the DAE baseline
  libcli11-dev         # command line
  nlohmann-json3-dev   # results.json
  libtomlplusplus-dev  # model files (TOML)
  libtinyxml2-dev      # URDF robots (XML, src/multibody)
  libopenmpi-dev openmpi-bin  # mpirun -n K mechint sweep (docs/sweeps.md)
  libhdf5-dev          # a sweep's trajectories.h5 (docs/sweeps.md)
  libgtest-dev         # tests
  libbenchmark-dev     # bench/
  coinor-libipopt-dev pkg-config  # optimal control (DMOC): the NLP solver Ipopt, found through pkg-config
  # fuzz/: the argument fuzzer is built with clang++-14 -fsanitize=fuzzer,address,undefined; the
  # libFuzzer, ASan and UBSan runtimes are in libclang-rt-14-dev, only recommended by clang-14.
  clang-14 libclang-rt-14-dev
  python3 python3-matplotlib python3-numpy  # figures
  # the Python module (python/, docs/python.md): pybind11, Python's headers, its tests and SymPy models
  python3-dev pybind11-dev python3-pytest python3-sympy
  # the module as a package (pyproject.toml, docs/python.md): pip and build with setuptools, offline,
  # into a virtual environment
  python3-build python3-setuptools python3-wheel python3-pip python3-venv
  ccache  # the wheel's test finds the build tree's objects in its cache (docs/python.md)
  python3-pandas  # mechint.sweep returns a DataFrame (docs/sweeps.md)
  python3-scipy   # the reference Sobol sequence of the sweep tests (scipy.stats.qmc)
  python3-dartpy  # DART, the oracle of the URDF robots' tests (tests/python_cli/test_urdf_dart.py)
  # the animated pages' tests (docs/animations.md): headless Chromium driven by Selenium through
  # chromedriver, offline; the pages themselves need no package (they draw on a 2D canvas)
  chromium chromium-driver python3-selenium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
