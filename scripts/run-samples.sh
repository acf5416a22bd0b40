#!/usr/bin/env bash
# The main job: install the dependencies, build, then run every sample kernel on the simulator and show
# its results and cycle counts (samples/run_samples.py checks each against a reference).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
python3 samples/run_samples.py --bin build/bin
# The kernel library as a graph compiler uses it: dlopen libtpc_kernels.so, list, instantiate softmax,
# run it through the test core (samples/kernel-lib), and the performance table of every kernel.
echo
echo "== kernel library (samples/kernel-lib/softmax_dlopen.cpp) =="
build/bin/softmax_dlopen_sample build/lib/libtpc_kernels.so 32 1000
echo
echo "== kernel library: cycles against the slot bound (bench/kernel_lib.py; docs/kernel-lib.md) =="
python3 bench/kernel_lib.py --only _f32
