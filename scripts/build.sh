#!/usr/bin/env bash
# Installs the dependencies and builds everything into build/ (Release), as DESIGN.md's build contract says.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
