#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root) or a dev box:
#   scripts/dev.sh demo   install what is missing, build, run `tessera demo`
#   scripts/dev.sh test   install what is missing, build, run the test suite
#   scripts/dev.sh build  install what is missing, build
# Environment: TESSERA_BUILD_DIR (build), TESSERA_BUILD_TYPE (RelWithDebInfo),
# TESSERA_SANITIZE=ON (ASan + UBSan build), TESSERA_JOBS (nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config
  libabsl-dev libflatbuffers-dev flatbuffers-compiler
  googletest libgtest-dev libgmock-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libdnnl-dev
  graphviz  # `dot`, for `tessera partition --svg` and its test
)
BUILD_DIR=${TESSERA_BUILD_DIR:-build}
BUILD_TYPE=${TESSERA_BUILD_TYPE:-RelWithDebInfo}
SANITIZE=${TESSERA_SANITIZE:-OFF}   # ON: AddressSanitizer + UndefinedBehaviorSanitizer
JOBS=${TESSERA_JOBS:-$(nproc)}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "dev.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DTESSERA_SANITIZE="$SANITIZE" >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

case "${1:-}" in
  demo)
    install_missing
    build
    "$BUILD_DIR/bin/tessera" demo
    ;;
  test)
    install_missing
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" --timeout 600
    ;;
  build)
    install_missing
    build
    ;;
  *)
    echo "usage: scripts/dev.sh demo|test|build" >&2
    exit 2
    ;;
esac
