# Framework tests and the libraries they need. Included (OPTIONAL) at the end
# of framework/CMakeLists.txt, so CMAKE_CURRENT_SOURCE_DIR is framework/.
add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/io ${CMAKE_CURRENT_BINARY_DIR}/io)

set(TSR_FW ${CMAKE_CURRENT_SOURCE_DIR})

tessera_test(tensor_proto_test
  SOURCES ${TSR_FW}/io/tensor_proto_test.cc
  LIBS tessera_framework tessera_io)

