#include "node/live_corpus.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/sha1.h"
#include "storage/corpus_store.h"
#include "tests/test_util.h"

namespace pollen::node {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

class LiveCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    auto store = storage::CorpusStore::Open(dir_ + "/corpus", {"t", "0123456789abcdef"},
                                            storage::StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
  }

  std::string dir_;
  std::unique_ptr<storage::CorpusStore> store_;
};

TEST_F(LiveCorpusTest, ReplaceSwapsAnEntryForAShorterOneWithWhatItOwns) {
  LiveCorpus corpus(store_.get(), "local");
  ASSERT_TRUE(corpus.Add(Bytes("aaaa"), {1, 2}, 0).ok());
  ASSERT_TRUE(corpus.Add(Bytes("bbbbbbbbbb"), {2, 3, 9}, 0).ok());  // owns 3 and 9
  EXPECT_EQ(corpus.Owned(1), (std::vector<uint32_t>{3, 9}));
  const base::Digest old_hash = corpus.entry(1).hash;

  bool replaced = false;
  ASSERT_TRUE(corpus.Replace(1, Bytes("ccc"), {9, 3}, &replaced).ok());
  ASSERT_TRUE(replaced);
  EXPECT_EQ(corpus.entry(1).data, Bytes("ccc"));
  EXPECT_EQ(corpus.entry(1).features, (std::vector<uint32_t>{3, 9}));
  EXPECT_EQ(corpus.entry(1).origin, "local");
  EXPECT_EQ(corpus.total_bytes(), 4u + 3u);
  EXPECT_FALSE(corpus.Contains(old_hash));
  EXPECT_TRUE(corpus.Contains(base::Sha1(corpus.entry(1).data.data(), 3)));
  EXPECT_EQ(corpus.entry(1).hash, base::Sha1(corpus.entry(1).data.data(), 3));
  // Entry 0 owns what it owned; entry 1, now smaller than it, took nothing it lacks.
  EXPECT_EQ(corpus.Owned(0), (std::vector<uint32_t>{1, 2}));

  // The store holds the new input and no longer the old one: a reload finds the same corpus.
  ASSERT_TRUE(corpus.Flush().ok());
  LiveCorpus reloaded(store_.get(), "local");
  std::vector<std::vector<uint32_t>> known;
  std::vector<StartupInput> to_execute;
  ASSERT_TRUE(reloaded.Load(true, &known, &to_execute).ok());
  EXPECT_TRUE(to_execute.empty());
  ASSERT_EQ(reloaded.size(), 2u);
  EXPECT_EQ(reloaded.total_bytes(), 7u);
  EXPECT_FALSE(reloaded.Contains(old_hash));
}

// Entries whose features are not trusted (another build's) run again at start-up; those
// the corpus's own origin found are its own (--keep-seed keeps them), a peer's are not.
TEST_F(LiveCorpusTest, UntrustedEntriesRunAgainAndSayWhoseTheyAre) {
  LiveCorpus corpus(store_.get(), "local");
  ASSERT_TRUE(corpus.Add(Bytes("mine"), {1}, 0).ok());
  ASSERT_TRUE(corpus.Add(Bytes("theirs"), {2}, 0, "peer:n2").ok());
  ASSERT_TRUE(corpus.Flush().ok());
  LiveCorpus reloaded(store_.get(), "local");
  std::vector<std::vector<uint32_t>> known;
  std::vector<StartupInput> to_execute;
  ASSERT_TRUE(reloaded.Load(false, &known, &to_execute).ok());
  EXPECT_TRUE(known.empty());
  EXPECT_EQ(reloaded.size(), 0u);
  ASSERT_EQ(to_execute.size(), 2u);
  for (const StartupInput& in : to_execute) {
    EXPECT_EQ(in.own, in.data == Bytes("mine")) << std::string(in.data.begin(), in.data.end());
  }
}

TEST_F(LiveCorpusTest, ReplaceRefusesWhatWouldLoseCoverageOrNotShrink) {
  LiveCorpus corpus(store_.get(), "local");
  ASSERT_TRUE(corpus.Add(Bytes("aaaa"), {1, 2}, 0).ok());
  ASSERT_TRUE(corpus.Add(Bytes("bbbbbbbbbb"), {2, 3, 9}, 0).ok());
  const base::Digest hash0 = corpus.entry(0).hash;
  const base::Digest hash1 = corpus.entry(1).hash;
  bool replaced = true;
  // Missing 9, which only entry 1 has.
  ASSERT_TRUE(corpus.Replace(1, Bytes("c"), {2, 3}, &replaced).ok());
  EXPECT_FALSE(replaced);
  // Not shorter.
  ASSERT_TRUE(corpus.Replace(1, Bytes("dddddddddd"), {2, 3, 9}, &replaced).ok());
  EXPECT_FALSE(replaced);
  // Already in the corpus (entry 0's bytes).
  ASSERT_TRUE(corpus.Replace(1, Bytes("aaaa"), {1, 2, 3, 9}, &replaced).ok());
  EXPECT_FALSE(replaced);
  EXPECT_EQ(corpus.entry(1).hash, hash1);
  EXPECT_EQ(corpus.total_bytes(), 14u);
  // Nothing reached the store either.
  size_t stored = 0;
  ASSERT_TRUE(store_
                  ->ForEachEntry([&](std::string_view h, const storage::EntryMeta&) {
                    EXPECT_TRUE(h == base::DigestHex(hash0) || h == base::DigestHex(hash1)) << h;
                    stored++;
                    return true;
                  })
                  .ok());
  EXPECT_EQ(stored, 2u);
}

TEST_F(LiveCorpusTest, ASmallerEntryTakesOverTheFeaturesOfALargerOne) {
  LiveCorpus corpus(nullptr, "local");
  ASSERT_TRUE(corpus.Add(Bytes("a long input"), {5, 6}, 0).ok());
  ASSERT_TRUE(corpus.Add(Bytes("short"), {5, 7}, 0).ok());
  EXPECT_EQ(corpus.Owned(0), (std::vector<uint32_t>{6}));
  EXPECT_EQ(corpus.Owned(1), (std::vector<uint32_t>{5, 7}));
  // Entry 0 may now drop 5: entry 1 keeps it.
  bool replaced = false;
  ASSERT_TRUE(corpus.Replace(0, Bytes("lo"), {6}, &replaced).ok());
  EXPECT_TRUE(replaced);
  EXPECT_EQ(corpus.Owned(1), (std::vector<uint32_t>{5, 7}));
}

}  // namespace
}  // namespace pollen::node
