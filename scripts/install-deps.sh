#!/usr/bin/env bash
# Installs the pinned Debian 12 packages the SDK builds and tests with. Idempotent: packages that are
# already at the pinned version are left alone, and apt is not touched at all when nothing is missing.
set -euo pipefail

# The one place where dependency versions are pinned.
LLVM_VERSION="1:19.1.7-3~deb12u1"
PACKAGES=(
  "cmake=3.25.1-1"
  "ninja-build=1.11.1-2~deb12u1"
  "g++"
  "llvm-19-dev=${LLVM_VERSION}"
  "libclang-19-dev=${LLVM_VERSION}"
  "clang-19=${LLVM_VERSION}"
  "libffi-dev=3.4.4-1"
  "libcli11-dev=2.1.2+ds-1"
  "libgtest-dev=1.12.1-0.2"
  "libbenchmark-dev=1.7.1-1"
  "nlohmann-json3-dev=3.11.2-2"
  "libfmt-dev=9.1.0+ds1-2"
  "libzstd-dev"
  "binutils"
  "python3"
  "libedit-dev=3.1-20221030-2"
  "pkg-config"
  "openmpi-bin=4.1.4-3+b1"
  "libopenmpi-dev=4.1.4-3+b1"
  "libopenblas-dev=0.3.21+ds-4"
  # ONNX's backend node tests and the module that reads them (tests/onnx/, Debian's /usr/bin/python3).
  "python3-onnx=1.12.0-2+b4"
  "libonnx-testdata=1.12.0-2"
)

missing=()
for spec in "${PACKAGES[@]}"; do
  name=${spec%%=*}
  want=${spec#*=}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  if [[ "$have" != "install ok installed"* ]]; then
    missing+=("$spec")
  elif [[ "$spec" == *=* && "$have" != *" $want" ]]; then
    missing+=("$spec")
  fi
done

# The DAP tests' client library comes from npm into an ignored folder (versions pinned in its package.json);
# Debian's nodejs and npm are installed when no node is present.
install_dap_test_client() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/debugger/dap-tests"
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends nodejs npm
  fi
  if [[ ! -d "$dir/node_modules/@vscode/debugadapter-testsupport" ]]; then
    (cd "$dir" && npm install --no-audit --no-fund --silent) || echo "install-deps: npm install failed; the DAP tests will be skipped"
  fi
}

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all pinned packages present"
  install_dap_test_client
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
install_dap_test_client
