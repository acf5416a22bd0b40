#!/usr/bin/env bash
# The main job: install the dependencies, build, then run every sample kernel on the simulator and show
# its results and cycle counts (samples/run_samples.py checks each against a reference).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
python3 samples/run_samples.py --bin build/bin
