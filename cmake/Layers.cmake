# The folders of src/ as layers (src/layers.txt): reluopt_layer(NAME) makes the OBJECT library reluopt_NAME of
# src/NAME/*.cc. Its include path holds, besides the public headers, a directory of the build tree with one
# link, NAME -> src/NAME, and it links the layers below it, whose directories it gets in turn: a layer sees only
# itself and what is below it, so `#include "algorithms/..."` in src/bounds/ fails to compile. The library
# reluopt::reluopt is one archive of the layers' objects (CMakeLists.txt).

# RELUOPT_LAYERS: the layers from the bottom up; RELUOPT_BELOW_<layer>: the layers it may use.
file(STRINGS ${PROJECT_SOURCE_DIR}/src/layers.txt _reluopt_layer_lines REGEX "^[a-z]+:")
set(RELUOPT_LAYERS "")
foreach(_line IN LISTS _reluopt_layer_lines)
  string(REGEX MATCH "^([a-z]+):(.*)$" _match "${_line}")
  list(APPEND RELUOPT_LAYERS ${CMAKE_MATCH_1})
  separate_arguments(RELUOPT_BELOW_${CMAKE_MATCH_1} UNIX_COMMAND "${CMAKE_MATCH_2}")
endforeach()

function(reluopt_layer layer)
  if(NOT layer IN_LIST RELUOPT_LAYERS)
    message(FATAL_ERROR "reluopt_layer: ${layer} is not in src/layers.txt")
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${layer}/*.cc)
  add_library(reluopt_${layer} OBJECT ${sources})
  # RELUOPT_UNITY compiles a layer's files in batches of 8, each batch one translation unit: the headers (Eigen,
  # nlohmann/json) are parsed and their templates compiled once a batch, which takes the library's build from
  # 374 to 150 CPU seconds at -O3 (make builds this way; an incremental build with ccache is faster without).
  set_target_properties(reluopt_${layer} PROPERTIES UNITY_BUILD ${RELUOPT_UNITY} UNITY_BUILD_BATCH_SIZE 8)
  set(view ${PROJECT_BINARY_DIR}/layers/${layer})
  file(MAKE_DIRECTORY ${view})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${view}/${layer} SYMBOLIC)
  target_include_directories(reluopt_${layer} PUBLIC ${view}
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_compile_features(reluopt_${layer} PUBLIC cxx_std_20)
  target_compile_options(reluopt_${layer} PRIVATE -Wall -Wextra)
  target_compile_definitions(reluopt_${layer} PUBLIC RELUOPT_VERSION="${PROJECT_VERSION}")
  target_link_libraries(reluopt_${layer} PUBLIC Eigen3::Eigen Threads::Threads)
  foreach(below IN LISTS RELUOPT_BELOW_${layer})
    target_link_libraries(reluopt_${layer} PUBLIC reluopt_${below})
  endforeach()
endfunction()
