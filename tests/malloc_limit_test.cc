// --malloc-limit-mb (libFuzzer's -malloc_limit_mb) and --only-ascii, in real runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

// big_malloc (ASan) allocates 1.5 GiB and frees it at once: the rss limit never sees it,
// the malloc limit does, with the allocation's stack.
TEST(MallocLimitTest, OneAllocationAboveTheLimitIsAnOomWithItsStack) {
  std::string dir = MakeTempDir();
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("big_malloc"), "--workers=1", "--seed=1",
                  "--time=120", "--malloc-limit-mb=1024", "--workdir=" + dir, "--minimize-time=0"},
                 300);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out-of-memory (malloc(1610612736)) is above the malloc limit"))
      << r.output;
  EXPECT_THAT(r.output, HasSubstr("big_malloc.cc")) << r.output;  // the stack names the harness
  EXPECT_EQ(ArtifactInputs(dir + "/crashes", "oom").size(), 1u) << r.output;
}

// Without a limit below the allocation (the default is the rss limit, 2 GiB), nothing fails.
TEST(MallocLimitTest, BelowTheLimitNothingFails) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/seed", "BIG");
  CommandResult r = RunCommand({PollenBin(), "fuzz", TestTarget("big_malloc"), dir, "--workers=1",
                                "--seed=1", "--runs=2000", "--workdir=" + dir + "/work"},
                               300);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The libFuzzer mode's -only_ascii=1: every input written to the output corpus is text,
// on a target whose checksum gate Pollen would otherwise fix with binary bytes.
TEST(OnlyAsciiTest, EveryInputFoundIsText) {
  std::string dir = MakeTempDir();
  CommandResult r =
      RunCommand({TestTarget("puzzle_crc32"), "-only_ascii=1", "-runs=300000", "-seed=3", dir}, 120,
                 {"POLLEN=" + PollenBin()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  size_t files = 0;
  for (const std::string& f : ListVisibleFiles(dir)) {
    files++;
    for (unsigned char c : ReadFile(f)) {
      ASSERT_TRUE((c >= 0x20 && c < 0x7f) || (c >= '\t' && c <= '\r'))
          << f << " holds byte " << int{c};
    }
  }
  EXPECT_GE(files, 3u) << r.output;
}

}  // namespace
}  // namespace pollen::testing
