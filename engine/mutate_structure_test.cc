// The mutators that keep structure: lines and nested groups (engine/mutate_structure.cc).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/mutator.h"
#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

// A group with its repetition, copied inside itself: the regular expression's program
// grows by a factor (re2 needs more than 512 instructions before it runs its NFA).
TEST(MutatorTest, NestGroupPutsACopyOfAGroupInsideItself) {
  MutationSources none;
  const std::string in = "(a{9}){9}";
  const std::string want = "(a{9}(a{9}){9}){9}";
  Bytes got = FirstResultContaining(Bytes(in.begin(), in.end()), Bytes(want.begin(), want.end()),
                                    none, 3, 20000);
  EXPECT_EQ(got, Bytes(want.begin(), want.end()));
}

// Brackets that never close give no group: whatever the mutations do, no copy of the input's
// brackets appears inside them.
TEST(MutatorTest, NestGroupNeedsAGroupThatCloses) {
  Mutator m(256);
  Rng rng = Rng::FromSeed(9);
  Bytes buf(256);
  const std::string in = "((((ab";
  for (int i = 0; i < 20000; i++) {
    std::copy(in.begin(), in.end(), buf.begin());
    m.Mutate(buf.data(), in.size(), rng, MutationSources{});
    ASSERT_STRNE(Mutator::MutatorName(m.last_mutator()), "NestGroup");
  }
}

// The results of CopyLine among `tries` mutations of `input` (each from the input afresh).
std::vector<std::string> CopyLineResults(const std::string& input, uint64_t seed, int tries) {
  MutationSources sources;
  Mutator m(256);
  Rng rng = Rng::FromSeed(seed);
  Bytes buf(256);
  std::vector<std::string> results;
  for (int i = 0; i < tries; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, sources);
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "CopyLine") continue;
    results.emplace_back(buf.begin(), buf.begin() + size);
  }
  return results;
}

TEST(MutatorTest, CopyLineDuplicatesWholeLines) {
  const std::string input = "HELO a\nMAIL b\nRCPT c\n";
  bool duplicated_rcpt = false;
  for (const std::string& out : CopyLineResults(input, 8, 20000)) {
    // Whole lines only: every line of the result is one of the input's.
    ASSERT_EQ(out.back(), '\n') << out;
    for (size_t at = 0; at < out.size();) {
      size_t nl = out.find('\n', at);
      std::string line = out.substr(at, nl + 1 - at);
      ASSERT_NE(input.find(line), std::string::npos) << "line '" << line << "' in " << out;
      at = nl + 1;
    }
    duplicated_rcpt = duplicated_rcpt || out.find("RCPT c\nRCPT c\n") != std::string::npos;
  }
  EXPECT_TRUE(duplicated_rcpt);
}

TEST(MutatorTest, CopyLineAppendsAfterAnUnfinishedLastLine) {
  // "[t]" is the last section and has no newline: a key copied after it starts a new line,
  // so it lands in that section instead of gluing onto "[t]".
  bool appended = false;
  for (const std::string& out : CopyLineResults("[s]\nk=1\n[t]", 12, 20000)) {
    ASSERT_EQ(out.find("]k"), std::string::npos) << "glued onto a line: " << out;
    appended = appended || out == "[s]\nk=1\n[t]\nk=1";
  }
  EXPECT_TRUE(appended);
}

}  // namespace
}  // namespace pollen::engine
