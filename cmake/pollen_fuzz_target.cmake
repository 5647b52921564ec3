# pollen_add_fuzz_target(NAME SOURCES... [SANITIZE address,undefined] [ROUTINE_LOG])
#
# Builds an unmodified libFuzzer harness as a Pollen target: SanitizerCoverage
# (-fsanitize=fuzzer-no-link: inline 8-bit counters, pc-table, trace-cmp) on the harness,
# and libpollen_runtime linked whole, so its strong callbacks replace any weak ones.
# ROUTINE_LOG also loads Pollen's compiler plugin (compiler/plugin.cc), which embeds the
# literals the target compares against, and the tokens it tests one byte at a time, as a
# dictionary and logs the pointer arguments of the target's own calls for input-to-state.
function(pollen_add_fuzz_target name)
  cmake_parse_arguments(ARG "ROUTINE_LOG" "SANITIZE" "" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  set(san "fuzzer-no-link")
  if(ARG_SANITIZE)
    set(san "${san},${ARG_SANITIZE}")
  endif()
  target_compile_options(${name} PRIVATE -fsanitize=${san} -fno-omit-frame-pointer -g)
  target_link_options(${name} PRIVATE -fsanitize=${san})
  if(POLLEN_SANITIZE STREQUAL "thread")
    # A TSan build of Pollen leaves its targets alone (CMakeLists.txt, POLLEN_SANITIZE).
    target_compile_options(${name} PRIVATE -fno-sanitize=thread)
    target_link_options(${name} PRIVATE -fno-sanitize=thread)
  endif()
  target_link_libraries(${name} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,pollen_runtime>")
  if(ARG_ROUTINE_LOG)
    target_compile_options(${name} PRIVATE -fpass-plugin=$<TARGET_FILE:pollen_routine_log>)
    add_dependencies(${name} pollen_routine_log)
    # A changed pass recompiles the target (OBJECT_DEPENDS takes no generator expression).
    set_source_files_properties(${ARG_UNPARSED_ARGUMENTS} TARGET_DIRECTORY ${name} PROPERTIES
                                OBJECT_DEPENDS ${PROJECT_BINARY_DIR}/compiler/libpollen_routine_log.so)
  endif()
endfunction()

# pollen_add_coverage_target(NAME SOURCES...)
#
# Builds a libFuzzer harness as a coverage build for `pollen coverage` and `pollen nightly`:
# source-based coverage (-fprofile-instr-generate -fcoverage-mapping) on the harness, and
# libpollen_coverage_main for main(), which runs files and directories of inputs and keeps
# the profile of every input even when one crashes or hangs.
function(pollen_add_coverage_target name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE -fprofile-instr-generate -fcoverage-mapping -g)
  target_link_options(${name} PRIVATE -fprofile-instr-generate)
  target_link_libraries(${name} PRIVATE pollen_coverage_main)
  if(POLLEN_SANITIZE STREQUAL "thread")
    target_compile_options(${name} PRIVATE -fno-sanitize=thread)
    target_link_options(${name} PRIVATE -fno-sanitize=thread)
  endif()
endfunction()
