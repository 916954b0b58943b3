# Framework tests and their test plugins, nothing else: every production
# library is defined in framework/CMakeLists.txt, which includes this file
# (required, not OPTIONAL: a missing file must fail the configure, not drop
# the tests silently), so CMAKE_CURRENT_SOURCE_DIR is framework/.
set(TSR_FW ${CMAKE_CURRENT_SOURCE_DIR})

tessera_test(output_comparison_test
  SOURCES ${TSR_FW}/io/output_comparison_test.cc
  LIBS tessera_output_comparison)

tessera_test(graph_operands_test
  SOURCES ${TSR_FW}/graph/graph_operands_test.cc
  LIBS tessera_core)
tessera_test(graph_verifier_test
  SOURCES ${TSR_FW}/graph/graph_verifier_test.cc
  LIBS tessera_core)

tessera_test(tensor_proto_test
  SOURCES ${TSR_FW}/io/tensor_proto_test.cc
  LIBS tessera_framework tessera_io)

tessera_test(mapped_file_test
  SOURCES ${TSR_FW}/model/mapped_file_test.cc
  LIBS tessera_core)
tessera_test(model_loader_test
  SOURCES ${TSR_FW}/model/model_loader_test.cc
  LIBS tessera_framework tessera_io tessera_plugin_kit)
tessera_test(model_loader_semantics_test
  SOURCES ${TSR_FW}/model/model_loader_semantics_test.cc
  LIBS tessera_framework tessera_io tessera_plugin_kit)

tessera_test(model_footer_test
  SOURCES ${TSR_FW}/model/model_footer_test.cc
  LIBS tessera_core tessera_plugin_kit)
tessera_test(budgets_test
  SOURCES ${TSR_FW}/base/budgets_test.cc
  LIBS tessera_core)
tessera_test(shared_text_test
  SOURCES ${TSR_FW}/base/shared_text_test.cc
  LIBS tessera_core)
tessera_test(fixed_decimal_test
  SOURCES ${TSR_FW}/base/fixed_decimal_test.cc
  LIBS tessera_core)
tessera_test(element_value_test
  SOURCES ${TSR_FW}/base/element_value_test.cc
  LIBS tessera_core)
tessera_test(json_reader_test
  SOURCES ${TSR_FW}/base/json_reader_test.cc
  LIBS tessera_core)

tessera_test(process_allocator_test
  SOURCES ${TSR_FW}/base/process_allocator_test.cc
  LIBS tessera_core)

tessera_test(atomic_file_test
  SOURCES ${TSR_FW}/base/atomic_file_test.cc
  LIBS tessera_atomic_file)

tessera_test(terminal_text_test
  SOURCES ${TSR_FW}/base/terminal_text_test.cc
  LIBS tessera_framework)

tessera_test(environment_test
  SOURCES ${TSR_FW}/base/environment_test.cc
  LIBS tessera_framework)
add_dependencies(environment_test tessera)

tessera_test(exception_boundary_test
  SOURCES ${TSR_FW}/base/exception_boundary_test.cc
  LIBS tessera_framework)

tessera_test(shape_inference_test
  SOURCES ${TSR_FW}/graph/shape_inference_test.cc
  LIBS tessera_framework tessera_io)

tessera_test(plugin_log_test
  SOURCES ${TSR_FW}/plugin_host/plugin_log_test.cc
  LIBS tessera_framework)

tessera_test(graph_view_impl_test
  SOURCES ${TSR_FW}/plugin_host/graph_view_impl_test.cc
  LIBS tessera_framework tessera_io)

# Deliberately broken compiler plugins for the registry test: one source,
# one MODULE per variant, each in its own directory under
# ${CMAKE_BINARY_DIR}/test_plugins/<variant>/ (never build/lib, the bundled
# plugin directory).
set(TSR_TEST_PLUGIN_VARIANTS good missing_symbol refuses_version below_floor null_table newer_minor
    short_table huge_table failing_compile frozen_v1 mismatched_vendor data_symbol garbage_table blocking_negotiate
    bad_checksum blob_vendor missing_entry)
set(TSR_TEST_PLUGIN_TARGETS)
foreach(variant IN LISTS TSR_TEST_PLUGIN_VARIANTS)
  string(TOUPPER ${variant} variant_upper)
  set(target tessera_testplugin_${variant})
  if(variant STREQUAL "missing_symbol")
    set(script ${TSR_FW}/plugin_host/testdata/no_exports.lds)
  else()
    set(script ${TSR_FW}/plugin_host/testdata/compiler_exports.lds)
  endif()
  tessera_plugin(${target}
    SOURCES ${TSR_FW}/plugin_host/testdata/test_plugin.cc
    LIBS tessera_plugin_kit
    VERSION_SCRIPT ${script})
  target_compile_definitions(${target} PRIVATE TSR_TEST_PLUGIN_${variant_upper}=1)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME tessera_compiler_testvendor
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test_plugins/${variant})
  list(APPEND TSR_TEST_PLUGIN_TARGETS ${target})
endforeach()
# A dispatch library without its entry symbol, beside the compiler one.
tessera_plugin(tessera_testplugin_dispatch_missing_symbol
  SOURCES ${TSR_FW}/plugin_host/testdata/test_plugin.cc
  LIBS tessera_plugin_kit
  VERSION_SCRIPT ${TSR_FW}/plugin_host/testdata/no_exports.lds)
target_compile_definitions(tessera_testplugin_dispatch_missing_symbol PRIVATE TSR_TEST_PLUGIN_MISSING_SYMBOL=1)
set_target_properties(tessera_testplugin_dispatch_missing_symbol PROPERTIES
  OUTPUT_NAME tessera_dispatch_testvendor
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test_plugins/missing_symbol)
list(APPEND TSR_TEST_PLUGIN_TARGETS tessera_testplugin_dispatch_missing_symbol)

tessera_test(plugin_registry_test
  SOURCES ${TSR_FW}/plugin_host/plugin_registry_test.cc
  LIBS tessera_framework tessera_io tessera_plugin_kit)
target_compile_definitions(plugin_registry_test PRIVATE TSR_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(plugin_registry_test ${TSR_TEST_PLUGIN_TARGETS})
foreach(bundled tessera_compiler_cpu tessera_dispatch_cpu tessera_compiler_systolic_npu tessera_compiler_mock_dsp)
  if(TARGET ${bundled})
    add_dependencies(plugin_registry_test ${bundled})
  endif()
endforeach()

# One frozen vendor pair (testdata/frozen_plugin.c, compiler + dispatch)
# built against the header snapshot `api_target`, as targets
# tessera_<kind>_<role>_<variant> in ${CMAKE_BINARY_DIR}/test_plugins/<kind>_<variant>/,
# with `ARGN` as the dispatch library's extra definitions. Not
# tessera_plugin(): that would put today's api/ on the include path ahead
# of the snapshot. Appends the targets to <out_list>.
function(tessera_frozen_pair kind variant api_target out_list)
  set(targets ${${out_list}})
  foreach(role compiler dispatch)
    set(target tessera_${kind}_${role}_${variant})
    add_library(${target} MODULE ${TSR_FW}/plugin_host/testdata/frozen_plugin.c)
    target_link_libraries(${target} PRIVATE ${api_target})
    # -Wno-type-limits: "minor < 0" is always false in the 1.0 build.
    target_compile_options(${target} PRIVATE -std=c11 -Wall -Wextra -Werror -Wno-type-limits)
    if(role STREQUAL "dispatch")
      target_compile_definitions(${target} PRIVATE TSR_FROZEN_ROLE_DISPATCH=1 ${ARGN})
      set(script ${CMAKE_SOURCE_DIR}/plugins/cpu/dispatch/exports.lds)
    else()
      set(script ${TSR_FW}/plugin_host/testdata/compiler_exports.lds)
    endif()
    target_link_options(${target} PRIVATE "-Wl,--version-script=${script}" "-Wl,--no-undefined")
    set_target_properties(${target} PROPERTIES PREFIX "lib" OUTPUT_NAME tessera_${role}_frozen
      C_VISIBILITY_PRESET hidden LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test_plugins/${kind}_${variant})
    list(APPEND targets ${target})
  endforeach()
  set(${out_list} ${targets} PARENT_SCOPE)
endfunction()

# Frozen vendor plugins: one C source built against released header
# snapshots (api/testdata/abi-1.0, abi-1.1, abi-1.3), never today's headers,
# into ${CMAKE_BINARY_DIR}/test_plugins/frozen_<v>/.
# 1.3 stands for the 1.2 rules too (1.3 appended ops and keys only).
set(TSR_FROZEN_TARGETS)
foreach(v 1_0 1_1 1_3)
  tessera_frozen_pair(frozen ${v} tessera_api_${v} TSR_FROZEN_TARGETS)
endforeach()

tessera_test(frozen_plugin_test
  SOURCES ${TSR_FW}/plugin_host/frozen_plugin_test.cc
  LIBS tessera_framework tessera_dispatch)
add_dependencies(frozen_plugin_test ${TSR_FROZEN_TARGETS} tessera_compiler_cpu tessera_dispatch_cpu)

# Demanding dispatch libraries: the frozen pair again (ABI 1.1), built with
# the defines frozen_plugin.c documents, each pair in
# ${CMAKE_BINARY_DIR}/test_plugins/demanding_<variant>/. They ask for what
# no bundled plugin asks for: 4096-byte alignment, a vendor buffer type
# before or after HOST, or a vendor type only (every edge a conversion).
set(TSR_DEMANDING_VARIANTS aligned vendor_first host_first vendor_only rtol_one rtol_past_one)
set(TSR_DEMANDING_DEFINES_aligned TSR_FROZEN_ALIGNMENT=4096u)
set(TSR_DEMANDING_DEFINES_vendor_first "TSR_FROZEN_BUFFER_TYPES=TSR_BUFFER_TYPE_VENDOR_BASE+7,TSR_BUFFER_TYPE_HOST")
set(TSR_DEMANDING_DEFINES_host_first "TSR_FROZEN_BUFFER_TYPES=TSR_BUFFER_TYPE_HOST,TSR_BUFFER_TYPE_VENDOR_BASE+7")
set(TSR_DEMANDING_DEFINES_vendor_only "TSR_FROZEN_BUFFER_TYPES=TSR_BUFFER_TYPE_VENDOR_BASE+7")
# The declared-tolerance bound (0 <= rtol <= 1): exactly at it and one
# double step past it.
set(TSR_DEMANDING_DEFINES_rtol_one TSR_FROZEN_NUMERICS_RTOL=1.0)
set(TSR_DEMANDING_DEFINES_rtol_past_one TSR_FROZEN_NUMERICS_RTOL=1.0000000000000002)
set(TSR_DEMANDING_TARGETS)
foreach(variant IN LISTS TSR_DEMANDING_VARIANTS)
  tessera_frozen_pair(demanding ${variant} tessera_api_1_1 TSR_DEMANDING_TARGETS ${TSR_DEMANDING_DEFINES_${variant}})
endforeach()
tessera_test(demanding_dispatch_test
  SOURCES ${TSR_FW}/plugin_host/demanding_dispatch_test.cc
  LIBS tessera_framework tessera_dispatch)
add_dependencies(demanding_dispatch_test ${TSR_DEMANDING_TARGETS} tessera_compiler_cpu tessera_dispatch_cpu)

# Verdict dispatch libraries: the frozen pair at ABI 1.3 (1.2's rules) with
# check_compatibility answering one fixed tsr_compatibility, each pair in
# ${CMAKE_BINARY_DIR}/test_plugins/verdict_<variant>/ (blob_compatibility_test.cc).
set(TSR_VERDICT_VARIANTS optimal prefer_recompile unsupported)
set(TSR_VERDICT_VALUE_optimal 0)
set(TSR_VERDICT_VALUE_prefer_recompile 1)
set(TSR_VERDICT_VALUE_unsupported 2)
set(TSR_VERDICT_TARGETS)
foreach(variant IN LISTS TSR_VERDICT_VARIANTS)
  tessera_frozen_pair(verdict ${variant} tessera_api_1_3 TSR_VERDICT_TARGETS
    TSR_FROZEN_COMPAT_VERDICT=${TSR_VERDICT_VALUE_${variant}})
endforeach()

# The written ABI contracts (outputs untouched on failure, get_last_error,
# reason_detail lifetime, fd ownership, concurrent invocations), checked
# against every bundled plugin through its raw tables.
tessera_test(abi_contract_test
  SOURCES ${TSR_FW}/plugin_host/abi_contract_test.cc
  LIBS tessera_framework)
add_dependencies(abi_contract_test tessera_compiler_cpu tessera_dispatch_cpu
  tessera_compiler_systolic_npu tessera_dispatch_systolic_npu)

# A compiler library whose constructor aborts (testdata/crashing_compiler.c),
# alone in its directory: `tessera run` of a compiled model must not open it.
add_library(tessera_testplugin_crashing_compiler MODULE ${TSR_FW}/plugin_host/testdata/crashing_compiler.c)
set_target_properties(tessera_testplugin_crashing_compiler PROPERTIES PREFIX "lib"
  OUTPUT_NAME tessera_compiler_crashing C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test_plugins/crashing_compiler)
