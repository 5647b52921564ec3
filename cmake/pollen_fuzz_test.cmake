# pollen_add_fuzz_test(NAME SOURCES... [SANITIZE ...] [ROUTINE_LOG])
#
# A GoogleTest program with typed fuzz tests (fuzztest/fuzz_test.h, docs/fuzz-tests.md): its
# sources built as a fuzz target (pollen_add_fuzz_target), linked with libpollen_fuzztest,
# whose main() runs the tests (seeds and testdata/fuzz files) or, given --fuzz=Suite.Name,
# fuzzes one through `pollen fuzz`. Each fuzz test is a ctest test.
function(pollen_add_fuzz_test name)
  pollen_add_fuzz_target(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,pollen_fuzztest>")
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()
