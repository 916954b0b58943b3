// The app C API's structs are ABI: their size and every member's offset on
// LP64 (x86-64, AArch64 Linux), worked out by hand from the C layout rules
// (each member at the next multiple of its alignment, the size rounded up
// to the largest alignment). A member moved, resized or inserted anywhere
// but the end breaks apps built against an older header.
#include <cstddef>

#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"

namespace {

#define PIN(type, member, offset) EXPECT_EQ(offsetof(type, member), size_t{offset}) << #type "::" #member

TEST(AppCStructLayout, EveryStructKeepsItsSizeAndOffsets) {
  static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "pins are for LP64");
  EXPECT_EQ(sizeof(tsr_app_environment_options), 48u);
  PIN(tsr_app_environment_options, struct_size, 0);
  PIN(tsr_app_environment_options, read_environment, 4);
  PIN(tsr_app_environment_options, plugin_directories, 8);
  PIN(tsr_app_environment_options, plugin_directory_count, 16);
  PIN(tsr_app_environment_options, bundled_plugin_directory, 24);
  PIN(tsr_app_environment_options, soc_directory, 32);
  PIN(tsr_app_environment_options, log_level, 40);
  PIN(tsr_app_environment_options, reserved0, 44);

  EXPECT_EQ(sizeof(tsr_app_input_shape), 24u);
  PIN(tsr_app_input_shape, name, 0);
  PIN(tsr_app_input_shape, dims, 8);
  PIN(tsr_app_input_shape, rank, 16);

  EXPECT_EQ(sizeof(tsr_app_budget), 16u);
  PIN(tsr_app_budget, name, 0);
  PIN(tsr_app_budget, value, 8);

  EXPECT_EQ(sizeof(tsr_app_load_options), 48u);
  PIN(tsr_app_load_options, struct_size, 0);
  PIN(tsr_app_load_options, format, 4);
  PIN(tsr_app_load_options, input_shapes, 8);
  PIN(tsr_app_load_options, input_shape_count, 16);
  PIN(tsr_app_load_options, budgets, 24);
  PIN(tsr_app_load_options, budget_count, 32);
  PIN(tsr_app_load_options, verify, 40);
  PIN(tsr_app_load_options, reserved0, 44);

  EXPECT_EQ(sizeof(tsr_app_compile_options), 112u);
  PIN(tsr_app_compile_options, struct_size, 0);
  PIN(tsr_app_compile_options, mode, 4);
  PIN(tsr_app_compile_options, accelerators, 8);
  PIN(tsr_app_compile_options, soc, 16);
  PIN(tsr_app_compile_options, plugin_options, 24);
  PIN(tsr_app_compile_options, plugin_option_count, 32);
  PIN(tsr_app_compile_options, policy, 40);
  PIN(tsr_app_compile_options, min_ops, 48);
  PIN(tsr_app_compile_options, max_partitions, 52);
  PIN(tsr_app_compile_options, max_retries, 56);
  PIN(tsr_app_compile_options, no_fallback, 60);
  PIN(tsr_app_compile_options, deadline_ms, 64);
  PIN(tsr_app_compile_options, reserved1, 68);
  PIN(tsr_app_compile_options, cache_dir, 72);
  PIN(tsr_app_compile_options, cache_max_bytes, 80);
  PIN(tsr_app_compile_options, background_warmup, 88);
  PIN(tsr_app_compile_options, leave_jit_only_ops, 92);
  PIN(tsr_app_compile_options, precision, 96);
  PIN(tsr_app_compile_options, calibration_dir, 104);

  EXPECT_EQ(sizeof(tsr_app_cache_info), 64u);
  PIN(tsr_app_cache_info, struct_size, 0);
  PIN(tsr_app_cache_info, enabled, 4);
  PIN(tsr_app_cache_info, hit, 8);
  PIN(tsr_app_cache_info, reserved0, 12);
  PIN(tsr_app_cache_info, key, 16);
  PIN(tsr_app_cache_info, disabled_reason, 24);
  PIN(tsr_app_cache_info, hits, 32);
  PIN(tsr_app_cache_info, misses, 40);
  PIN(tsr_app_cache_info, invalidations, 48);
  PIN(tsr_app_cache_info, evictions, 56);

  EXPECT_EQ(sizeof(tsr_app_bytecode_compatibility), 40u);
  PIN(tsr_app_bytecode_compatibility, struct_size, 0);
  PIN(tsr_app_bytecode_compatibility, verdict, 4);
  PIN(tsr_app_bytecode_compatibility, stamped, 8);
  PIN(tsr_app_bytecode_compatibility, reserved0, 12);
  PIN(tsr_app_bytecode_compatibility, vendor, 16);
  PIN(tsr_app_bytecode_compatibility, soc, 24);
  PIN(tsr_app_bytecode_compatibility, message, 32);

  EXPECT_EQ(sizeof(tsr_app_tensor_info), 40u);
  PIN(tsr_app_tensor_info, name, 0);
  PIN(tsr_app_tensor_info, dtype, 8);
  PIN(tsr_app_tensor_info, reserved0, 12);
  PIN(tsr_app_tensor_info, shape, 16);
  PIN(tsr_app_tensor_info, rank, 24);
  PIN(tsr_app_tensor_info, byte_size, 32);

  EXPECT_EQ(sizeof(tsr_app_buffer), 40u);
  PIN(tsr_app_buffer, struct_size, 0);
  PIN(tsr_app_buffer, buffer_type, 4);
  PIN(tsr_app_buffer, host_address, 8);
  PIN(tsr_app_buffer, fd, 16);
  PIN(tsr_app_buffer, reserved0, 20);
  PIN(tsr_app_buffer, offset, 24);
  PIN(tsr_app_buffer, size_bytes, 32);
}

}  // namespace
