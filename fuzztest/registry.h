// The typed fuzz tests a program defines (fuzztest/fuzz_test.h), by full name, for its main
// (fuzztest/fuzz_test_main.cc) and its libFuzzer entry points (fuzztest/fuzz_test.cc).
#ifndef POLLEN_FUZZTEST_REGISTRY_H_
#define POLLEN_FUZZTEST_REGISTRY_H_

#include <string>
#include <vector>

#include "fuzztest/fuzz_test.h"

namespace pollen::fuzztest {

// The test named Suite.Name, or null.
FuzzTestBase* FindFuzzTest(const std::string& full_name);

// Every test's full name, sorted.
std::vector<std::string> FuzzTestNames();

// The test a worker runs (chosen by POLLEN_FUZZ); null outside fuzzing.
FuzzTestBase*& CurrentFuzzTest();

}  // namespace pollen::fuzztest

#endif  // POLLEN_FUZZTEST_REGISTRY_H_
