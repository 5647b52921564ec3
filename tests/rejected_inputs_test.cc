// A harness that returns -1 rejects its input (libFuzzer's contract): the input never joins
// the corpus, however much new coverage it brought. The target (tests/targets/rejecting.cc)
// rejects every input that starts with 'R' and accepts those that start with 'K', both
// behind branches of their own; seeds of both kinds start the run (--keep-seed, on by
// default, keeps every seed but a rejected one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

TEST(RejectedInputsTest, AnInputTheHarnessRejectsNeverJoinsTheCorpus) {
  const std::string dir = MakeTempDir();
  std::filesystem::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/r", "Rabc");
  WriteFile(dir + "/seeds/k", "Kabc");
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("rejecting"), dir + "/seeds", "--workers=1",
                  "--seed=3", "--runs=100000", "--workdir=" + dir + "/work"},
                 300);
  ASSERT_FALSE(r.timed_out) << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  CommandResult ex = RunCommand(
      {PollenBin(), "corpus", "export", dir + "/work", dir + "/out", "--format=libfuzzer"}, 60);
  ASSERT_EQ(ex.exit_code, 0) << ex.output;
  size_t accepted = 0;
  for (const std::string& path : ListFiles(dir + "/out", "")) {
    if (std::filesystem::is_directory(path)) continue;  // "." and ".."
    const std::string input = ReadFile(path);
    ASSERT_FALSE(!input.empty() && input[0] == 'R') << "a rejected input joined: " << input;
    if (!input.empty() && input[0] == 'K') accepted++;
  }
  // The run did keep inputs behind the accepted branches: what was kept out was kept out
  // because it was rejected.
  EXPECT_GE(accepted, 2u) << r.output;
}

}  // namespace
}  // namespace pollen::testing
