#!/usr/bin/env bash
# The AddressSanitizer + UndefinedBehaviorSanitizer stage: a reduced, named
# set. A sanitized Debug build of the whole suite took 28 of CI's 55 minutes
# on a 2-core EPYC; this set keeps every test that feeds the code untrusted
# bytes, crosses the C ABI, or owns memory across threads and handles, and
# leaves out the pure algorithm tests (partitioning search, cost models,
# quantization maths, reference-kernel numerics), which run unsanitized in
# the README's command. Run after `scripts/dev.sh test` has installed the
# packages. Any UB aborts its test (-fno-sanitize-recover).
#
#   scripts/asan.sh            # build into build-asan/, run the set
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${TESSERA_ASAN_BUILD_DIR:-build-asan}
JOBS=${TESSERA_JOBS:-$(nproc)}

# Untrusted input: every parser and loader, the fuzz corpora replayed, the
# CLI fed bad files.
PARSERS=(
  fuzz_replay_bytecode_verify fuzz_replay_cpu_dispatch_load fuzz_replay_npu_dispatch_load
  fuzz_replay_onnx_import fuzz_replay_soc_parse fuzz_replay_tensor_proto fuzz_replay_tsr_model
  onnx_importer_test tensor_proto_test json_reader_test model_loader_test model_loader_semantics_test
  model_footer_test mapped_file_test bytecode_check_test graph_verifier_test regular_file_test
  cli_bad_input_test cli_reliability_test cli_dynamic_shapes_test cli_freeze_input_test cli_test cli_onnx_backend_test
)
# The C ABI and the plugins behind it: tables, frozen versions, misbehaving
# plugins, and each bundled plugin's dispatch.
ABI=(
  abi_contract_test abi_headers_c_test abi_entry_prototypes_test abi_layout_drift_test frozen_plugin_test demanding_dispatch_test
  plugin_registry_test plugin_kit_test exception_boundary_test cpu_dispatch_test cpu_fast_kernels_test
  cpu_loop_kernels_test cpu_conv_regions_test mock_dsp_test systolic_npu_plugin_test systolic_npu_core_test
)
# Ownership and lifetime: the app API (C and C++), async runs, caches,
# the runtime's buffers and conversions.
LIFETIME=(
  app_test app_async_run_test app_resilience_test run_into_app_test compile_cache_app_test warmup_app_test
  app_shared_context_test app_c_api_misuse_test app_run_options_test matmul_cpp matmul_c
  compile_cache_test cached_compile_test atomic_file_test helper_process_test process_allocator_test
  systolic_npu_sram_pool_test runtime_execution_context_test runtime_execution_context_bindings_test
  runtime_buffer_negotiation_test runtime_layout_conversion_test runtime_dsp_async_table_test
  runtime_run_into_test runtime_external_constants_test runtime_only_test
)
# What the tests load at run time.
RUNTIME_DEPS=(tessera tessera_bundled_plugins tessera_test_plugins tessera_frozen_plugins tessera_socs)

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${PARSERS[@]}" "${ABI[@]}" "${LIFETIME[@]}" "${RUNTIME_DEPS[@]}"
# Leak checking is off: LeakSanitizer's tracer crashes at exit while OpenMP
# worker threads are alive (cpu.threads=2 tests), a known LSan limitation;
# docs/testing.md says how to run the leak check locally.
# allocator_may_return_null=1: a huge allocation fails as it does without
# ASan (nullptr / std::bad_alloc, which the reliability tests expect to
# become an error), instead of ASan aborting the process.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
# Executables outside the set register a *_NOT_BUILT placeholder; skip those.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" --timeout 600 -E '_NOT_BUILT$'
