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
  # Line tables (-g1) are enough for the reports' stack traces and keep the build short.
  add_compile_options(-fsanitize=${_reluopt_sanitizers} -fno-omit-frame-pointer -g1)
  if(_reluopt_sanitizers MATCHES "undefined")
    # The alignment, null and vptr checks triple the compile time of the Eigen kernels at -O1 (src/bounds/
    # symbolic_bounds.cc: 11 s with address plus the other checks, 32 s with them) and slow every test. A null
    # dereference still stops the test under AddressSanitizer, as a SEGV.
    add_compile_options(-fno-sanitize-recover=all -fno-sanitize=alignment,null,vptr)
  endif()
  add_link_options(-fsanitize=${_reluopt_sanitizers})
  message(STATUS "reluopt: sanitizers ${_reluopt_sanitizers}")
endif()

# ThreadSanitizer instruments the resolver the loader calls to pick a target_clones version, before the
# runtime is set up, and the test binary crashes at load. The one file with target_clones is a numeric kernel
# whose data each thread owns (one dense LP per sample), so it is left uninstrumented for ThreadSanitizer only.
if(_reluopt_sanitizers MATCHES "thread")
  set_source_files_properties(${CMAKE_SOURCE_DIR}/src/solver/dense_dual_simplex.cc
                              PROPERTIES COMPILE_OPTIONS -fno-sanitize=thread SKIP_UNITY_BUILD_INCLUSION ON)
endif()
