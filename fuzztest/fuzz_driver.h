// `--fuzz=Suite.Name`: one typed fuzz test fuzzed by `pollen fuzz`, with this program as the
// target. The seeds and the test's corpus files are the starting inputs; the work directory
// (corpus and learned words) is kept for the next run, in $POLLEN_FUZZ_WORKDIR or
// .pollen/fuzz-tests/PROGRAM/Suite.Name. A failure is copied, minimized by pollen, into the
// test's testdata/fuzz/Suite.Name/ directory, where plain runs of the test find it.
#ifndef POLLEN_FUZZTEST_FUZZ_DRIVER_H_
#define POLLEN_FUZZTEST_FUZZ_DRIVER_H_

#include <string>

namespace pollen::fuzztest {

// Returns the exit code: 0 no failure in `seconds` (0: until Ctrl-C), 1 a failure (written
// into the corpus directory), 2 an unknown test or a set-up error.
int FuzzOneTest(const std::string& full_name, unsigned long seconds, unsigned workers);

}  // namespace pollen::fuzztest

#endif  // POLLEN_FUZZTEST_FUZZ_DRIVER_H_
