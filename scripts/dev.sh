#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root) or a dev box:
#   scripts/dev.sh demo   install what is missing, build the product, run `tessera demo`
#   scripts/dev.sh test   install what is missing, build everything, run the test suite
#   scripts/dev.sh build  install what is missing, build everything
# The demo builds only the `tessera` command, the bundled plugins and the SoC
# files (a fresh build dir is configured with TESSERA_BUILD_TESTS=OFF), so a
# newcomer sees it without waiting for the test suite to compile.
# Environment: TESSERA_BUILD_DIR (build), TESSERA_BUILD_TYPE (RelWithDebInfo),
# TESSERA_SANITIZE=ON (ASan + UBSan build), TESSERA_JOBS (nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

# What the product needs to build.
PRODUCT_PACKAGES=(
  build-essential cmake pkg-config
  libabsl-dev libflatbuffers-dev flatbuffers-compiler
  libonnx-dev libprotobuf-dev protobuf-compiler
  libdnnl-dev
)
# What the tests need besides.
TEST_PACKAGES=(
  googletest libgtest-dev libgmock-dev
  libonnx-testdata
  graphviz  # `dot`, for `tessera partition --svg` and its test
)
BUILD_DIR=${TESSERA_BUILD_DIR:-build}
BUILD_TYPE=${TESSERA_BUILD_TYPE:-RelWithDebInfo}
SANITIZE=${TESSERA_SANITIZE:-OFF}   # ON: AddressSanitizer + UndefinedBehaviorSanitizer
JOBS=${TESSERA_JOBS:-$(nproc)}

install_missing() {
  local missing=()
  for p in "$@"; do
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

# configure TESTS: TESTS is ON or OFF, or "keep" (an existing build dir
# keeps its setting; a fresh one gets OFF).
configure() {
  local tests=$1
  if [ "$tests" = keep ]; then
    if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then tests=""; else tests=OFF; fi
  fi
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DTESSERA_SANITIZE="$SANITIZE" \
    ${tests:+-DTESSERA_BUILD_TESTS=$tests} >/dev/null
}

case "${1:-}" in
  demo)
    install_missing "${PRODUCT_PACKAGES[@]}"
    configure keep
    # `tessera` depends on the bundled plugins and the SoC files.
    cmake --build "$BUILD_DIR" -j "$JOBS" --target tessera
    "$BUILD_DIR/bin/tessera" demo
    ;;
  test)
    install_missing "${PRODUCT_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    configure ON
    cmake --build "$BUILD_DIR" -j "$JOBS"
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" --timeout 600
    ;;
  build)
    install_missing "${PRODUCT_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    configure ON
    cmake --build "$BUILD_DIR" -j "$JOBS"
    ;;
  *)
    echo "usage: scripts/dev.sh demo|test|build" >&2
    exit 2
    ;;
esac
