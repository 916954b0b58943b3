#!/usr/bin/env bash
# The concurrency tests under ThreadSanitizer: a reduced, named set (a whole
# TSan build of the suite would double CI time). Run after `scripts/dev.sh
# test` has installed the packages. Any data race fails the run.
#
#   scripts/tsan.sh            # build into build-tsan/, run the set
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${TESSERA_TSAN_BUILD_DIR:-build-tsan}
JOBS=${TESSERA_JOBS:-$(nproc)}
# The multi-threaded tests and what they load.
TARGETS=(
  runtime_execution_context_test app_test abi_contract_test systolic_npu_sram_pool_test background_warmup_test
  app_async_run_test runtime_dsp_async_table_test app_shared_context_test app_run_options_test
  tessera_compiler_cpu tessera_dispatch_cpu tessera_compiler_systolic_npu tessera_dispatch_systolic_npu tessera_socs
  tessera_compiler_mock_dsp tessera_dispatch_mock_dsp
)
TESTS='Concurrent\.|AppRunOptions\.|AsyncRun\.|SharedContext\.|DspAsyncTable\.|AppApi\.ManyThreads|Contract\.(DistinctInvocations|LastErrorIsPerThread)|SramPool\.|BackgroundWarmupTest\.'

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_TSAN=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]}"
# halt_on_error: the first race fails its test. The suppressions name only
# libgomp, which is not built with TSan (its barriers look like races).
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp"
ctest --test-dir "$BUILD_DIR" --output-on-failure -R "$TESTS" --timeout 600
