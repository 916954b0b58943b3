# tessera_test(NAME SOURCES... LIBS ...) builds one gtest binary and registers
# its cases with ctest. Tests sit beside the code they test.
function(tessera_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE tessera_source_root ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ENVIRONMENT "TESSERA_BUILD_DIR=${CMAKE_BINARY_DIR}")
endfunction()

# tessera_plugin(NAME SOURCES... LIBS ...) builds a plugin shared library that
# exports only its entry symbol (version script) and sees only api/.
function(tessera_plugin name)
  cmake_parse_arguments(P "" "VERSION_SCRIPT" "SOURCES;LIBS" ${ARGN})
  add_library(${name} MODULE ${P_SOURCES})
  set_target_properties(${name} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${name} PRIVATE tessera_source_root tessera_api ${P_LIBS})
  if(P_VERSION_SCRIPT)
    target_link_options(${name} PRIVATE "-Wl,--version-script=${P_VERSION_SCRIPT}" "-Wl,--no-undefined")
  endif()
endfunction()
