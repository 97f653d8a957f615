# RELUOPT_SANITIZE: a comma-separated list for -fsanitize= (address,undefined or thread), applied to every
# target of the project so that the library, the CLI and the tests are instrumented alike. Undefined behaviour
# aborts instead of printing and going on, so that a report fails the test that triggers it.
# RELUOPT_FUZZ adds libFuzzer's coverage instrumentation (clang only) and implies address,undefined.
set(RELUOPT_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined or thread")

set(_reluopt_sanitizers "${RELUOPT_SANITIZE}")
if(RELUOPT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "RELUOPT_FUZZ needs clang: configure with CXX=clang++ (make fuzz does)")
  endif()
  if(NOT _reluopt_sanitizers)
    set(_reluopt_sanitizers address,undefined)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(_reluopt_sanitizers)
  add_compile_options(-fsanitize=${_reluopt_sanitizers} -fno-omit-frame-pointer -g)
  if(_reluopt_sanitizers MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=all)
  endif()
  add_link_options(-fsanitize=${_reluopt_sanitizers})
  message(STATUS "reluopt: sanitizers ${_reluopt_sanitizers}")
endif()
