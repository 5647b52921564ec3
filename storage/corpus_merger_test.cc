#include "storage/corpus_merger.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/sha1.h"
#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "storage/record_codec.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

const CampaignId kCampaign{"merge_target", "build-1"};
const CampaignId kOtherBuild{"merge_target", "build-0"};
constexpr int64_t kNow = 1700000000000;

// Features of an input: the byte values it contains, and 1000 + each byte pair it contains.
std::vector<uint32_t> FeaturesOf(std::string_view text) {
  std::set<uint32_t> f;
  for (size_t i = 0; i < text.size(); ++i) {
    f.insert(static_cast<unsigned char>(text[i]));
    if (i + 1 < text.size()) {
      f.insert(1000 + static_cast<unsigned char>(text[i]) * 256u +
               static_cast<unsigned char>(text[i + 1]));
    }
  }
  return {f.begin(), f.end()};
}

std::string HashOf(std::string_view text) {
  return base::Sha1Hex(reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

// Computes FeaturesOf; inputs starting with "crash" fail with "SEGV"; after `limit` calls it
// returns an error (the executor is gone), as a killed merge would stop.
class FakeExecutor : public InputExecutor {
 public:
  explicit FakeExecutor(std::map<std::string, int>* counts = nullptr, int limit = -1)
      : counts_(counts), limit_(limit) {}

  Result<ExecutionResult> Execute(const uint8_t* data, size_t size) override {
    if (limit_ >= 0 && calls_ >= limit_) return Status::Error("executor gone");
    ++calls_;
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (counts_ != nullptr) ++(*counts_)[HashOf(text)];
    ExecutionResult result;
    if (text.rfind("crash", 0) == 0) {
      result.failed = true;
      result.failure_kind = "SEGV";
      return result;
    }
    result.features = FeaturesOf(text);
    result.exec_time_us = 5;
    return result;
  }
  int calls() const { return calls_; }

 private:
  std::map<std::string, int>* counts_;
  int limit_;
  int calls_ = 0;
};

// A store at `path` holding `texts` with their features (as a fuzzer would have recorded).
std::unique_ptr<CorpusStore> StoreWith(const std::string& path, const CampaignId& campaign,
                                       const std::vector<std::string>& texts) {
  std::unique_ptr<CorpusStore> store = OpenOrFail(path, campaign);
  for (const std::string& text : texts) {
    EntryMeta meta = MetaFor(text, FeaturesOf(text));
    const std::vector<uint8_t> bytes = Bytes(text);
    EXPECT_TRUE(store->PutEntry(HashOf(text), bytes.data(), bytes.size(), meta).ok());
  }
  return store;
}

InputSource SourceOf(std::vector<std::string> texts) {
  return [texts](const InputSink& sink) -> Status {
    for (const std::string& text : texts) {
      if (Status s = sink("file", Bytes(text)); !s.ok()) return s;
    }
    return Status::Ok();
  };
}

// hash -> input bytes + encoded metadata: everything an entry holds.
std::map<std::string, std::string> Dump(const CorpusStore& store) {
  std::map<std::string, std::string> out;
  EXPECT_TRUE(store
                  .ForEachEntry([&](std::string_view hash, const EntryMeta& meta) {
                    Result<std::vector<uint8_t>> input = store.GetInput(hash);
                    EXPECT_TRUE(input.ok());
                    out[std::string(hash)] =
                        std::string(input->begin(), input->end()) + "|" + EncodeEntryMeta(meta);
                    return true;
                  })
                  .ok());
  return out;
}

std::set<uint32_t> UnionOf(const std::vector<std::string>& texts) {
  std::set<uint32_t> u;
  for (const std::string& t : texts) {
    for (uint32_t f : FeaturesOf(t)) u.insert(f);
  }
  return u;
}

std::set<uint32_t> FeaturesIn(const CorpusStore& store, uint64_t* bytes = nullptr) {
  std::set<uint32_t> u;
  EXPECT_TRUE(store
                  .ForEachEntry([&](std::string_view, const EntryMeta& meta) {
                    u.insert(meta.features.begin(), meta.features.end());
                    if (bytes) *bytes += meta.size;
                    return true;
                  })
                  .ok());
  return u;
}

size_t AuxCount(const CorpusStore& store, AuxTable table) {
  size_t n = 0;
  EXPECT_TRUE(store
                  .ForEachAux(table,
                              [&](std::string_view, std::string_view) {
                                ++n;
                                return true;
                              })
                  .ok());
  return n;
}

const std::vector<std::string> kCorpusA = {"hello world", "hello", "help me", "yellow"};
const std::vector<std::string> kCorpusB = {"world wide", "hello", "wild", "howdy world"};
const std::vector<std::string> kCorpusC = {"help", "zebra", "hello world!", "abc", "bca", "cab"};

std::vector<std::string> AllOf(std::vector<std::vector<std::string>> corpora) {
  std::vector<std::string> all;
  for (auto& c : corpora) all.insert(all.end(), c.begin(), c.end());
  return all;
}

TEST(CorpusMergerTest, ThreeOverlappingCorporaKeepEveryFeatureWithFewerEntriesAndBytes) {
  ScratchDir dir;
  auto a = StoreWith(dir.Sub("a"), kCampaign, kCorpusA);
  auto b = StoreWith(dir.Sub("b"), kCampaign, kCorpusB);
  auto dest = OpenOrFail(dir.Sub("dest"), kCampaign);
  FakeExecutor executor;
  CorpusMerger merger(dest.get(), &executor, {kNow, nullptr});
  merger.AddStore(a.get());
  merger.AddStore(b.get());
  merger.AddInputs("dir-c", SourceOf(kCorpusC));
  Result<MergeReport> report = merger.Run();
  ASSERT_TRUE(report.ok()) << report.status().message();

  const std::vector<std::string> all = AllOf({kCorpusA, kCorpusB, kCorpusC});
  const std::set<std::string> unique(all.begin(), all.end());
  uint64_t union_bytes = 0;
  for (const std::string& t : unique) union_bytes += t.size();
  uint64_t bytes = 0;
  EXPECT_EQ(FeaturesIn(*dest, &bytes), UnionOf(all));
  EXPECT_EQ(report->features, UnionOf(all).size());
  EXPECT_LT(Dump(*dest).size(), unique.size());
  EXPECT_LT(bytes, union_bytes);
  EXPECT_EQ(report->inputs_seen, all.size());
  EXPECT_EQ(report->duplicates, all.size() - unique.size());
  EXPECT_EQ(report->entries_selected, Dump(*dest).size());
  EXPECT_EQ(report->entries_added, Dump(*dest).size());
  EXPECT_EQ(report->bytes_selected, bytes);
  EXPECT_EQ(executor.calls(), 6);  // only corpus C, none of which is in A or B
  EXPECT_EQ(AuxCount(*dest, AuxTable::kMergeState), 0u);  // cleared at the end
}

TEST(CorpusMergerTest, TrustedFeaturesAreNotExecutedAgain) {
  ScratchDir dir;
  auto same = StoreWith(dir.Sub("same"), kCampaign, kCorpusA);
  auto other = StoreWith(dir.Sub("other"), kOtherBuild, {"wild", "yellow", "zzz"});
  auto dest = OpenOrFail(dir.Sub("dest"), kCampaign);
  std::map<std::string, int> counts;
  FakeExecutor executor(&counts);
  CorpusMerger merger(dest.get(), &executor, {kNow, nullptr});
  merger.AddStore(other.get());  // added first, yet "yellow" is taken from the trusted one
  merger.AddStore(same.get());
  merger.AddInputs("dir", SourceOf({"hello", "new input"}));
  Result<MergeReport> report = merger.Run();
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(counts, (std::map<std::string, int>{
                        {HashOf("wild"), 1}, {HashOf("zzz"), 1}, {HashOf("new input"), 1}}));
  EXPECT_EQ(report->executed, 3u);
  EXPECT_EQ(FeaturesIn(*dest), UnionOf(AllOf({kCorpusA, {"wild", "zzz", "new input"}})));
}

TEST(CorpusMergerTest, CrashingInputsAreSkippedAndRecorded) {
  ScratchDir dir;
  auto dest = OpenOrFail(dir.Sub("dest"), kCampaign);
  FakeExecutor executor;
  CorpusMerger merger(dest.get(), &executor, {kNow, nullptr});
  merger.AddInputs("dir", SourceOf({"abc", "crash one", "xyz", "crash two!"}));
  Result<MergeReport> report = merger.Run();
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->failed, 2u);
  EXPECT_EQ(report->failures_by_kind, (std::map<std::string, uint64_t>{{"SEGV", 2}}));
  ASSERT_EQ(report->failures.size(), 2u);
  std::set<std::string> failed = {report->failures[0].hash, report->failures[1].hash};
  EXPECT_EQ(failed, (std::set<std::string>{HashOf("crash one"), HashOf("crash two!")}));
  EXPECT_FALSE(dest->HasEntry(HashOf("crash one")));
  EXPECT_TRUE(dest->HasEntry(HashOf("abc")));
  EXPECT_TRUE(dest->HasEntry(HashOf("xyz")));
  // Recorded in the crash table, each with its input (no signature from this executor:
  // the input's hash stands in).
  std::map<std::string, CrashRecord> crashes;
  ASSERT_TRUE(dest->ForEachCrash([&](std::string_view signature, const CrashRecord& r) {
                    crashes[std::string(signature)] = r;
                    return true;
                  })
                  .ok());
  ASSERT_EQ(crashes.size(), 2u);
  const CrashRecord& one = crashes.at("input-" + HashOf("crash one").substr(0, 16));
  EXPECT_EQ(one.kind, "SEGV");
  EXPECT_EQ(std::string(one.input.begin(), one.input.end()), "crash one");
  EXPECT_EQ(one.count, 1u);
}

TEST(CorpusMergerTest, FailsWithoutAnExecutorWhenInputsNeedOne) {
  ScratchDir dir;
  auto dest = OpenOrFail(dir.Sub("dest"), kCampaign);
  CorpusMerger merger(dest.get(), nullptr);
  merger.AddInputs("dir", SourceOf({"abc"}));
  ExpectErrorMentions(merger.Run().status(), {"no executor", "1 inputs"});
}

TEST(CorpusMergerTest, InterruptedMergeResumesToTheSameResultWithoutReExecuting) {
  ScratchDir dir;
  const std::vector<std::string> other_build = {"other build", "crash here", "yellow"};
  auto a = StoreWith(dir.Sub("a"), kCampaign, kCorpusA);
  auto b = StoreWith(dir.Sub("b"), kOtherBuild, other_build);
  auto run = [&](CorpusStore* dest, FakeExecutor* executor) {
    CorpusMerger merger(dest, executor, {kNow, nullptr});
    merger.AddStore(a.get());
    merger.AddStore(b.get());
    merger.AddInputs("dir-b", SourceOf(kCorpusB));
    merger.AddInputs("dir-c", SourceOf(kCorpusC));
    return merger.Run();
  };
  auto once = OpenOrFail(dir.Sub("once"), kCampaign);
  FakeExecutor straight;
  Result<MergeReport> full = run(once.get(), &straight);
  ASSERT_TRUE(full.ok()) << full.status().message();
  ASSERT_GT(straight.calls(), 6);

  auto twice = OpenOrFail(dir.Sub("twice"), kCampaign);
  std::map<std::string, int> counts;
  FakeExecutor first(&counts, /*limit=*/straight.calls() / 2);
  ExpectErrorMentions(run(twice.get(), &first).status(), {"executor gone", "resume"});
  EXPECT_GT(AuxCount(*twice, AuxTable::kMergeState), 0u);
  twice.reset();  // as if the process had been killed: reopen
  twice = OpenOrFail(dir.Sub("twice"), kCampaign);
  FakeExecutor second(&counts);
  Result<MergeReport> resumed = run(twice.get(), &second);
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();

  EXPECT_EQ(first.calls() + second.calls(), straight.calls());
  for (const auto& [hash, n] : counts) EXPECT_EQ(n, 1) << hash;
  EXPECT_EQ(resumed->results_reused, static_cast<uint64_t>(first.calls()));
  EXPECT_EQ(resumed->failed, 1u);  // "crash here" is reported even if it ran in the first run
  EXPECT_EQ(Dump(*twice), Dump(*once));
  EXPECT_EQ(AuxCount(*twice, AuxTable::kMergeState), 0u);

  // Re-running a finished merge changes nothing. The selected inputs now have recorded
  // features and are not executed; the others (the state is cleared) are, once more.
  FakeExecutor third;
  Result<MergeReport> again = run(twice.get(), &third);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(Dump(*twice), Dump(*once));
  std::set<std::string> untrusted, left_out;
  for (const std::string& t : AllOf({other_build, kCorpusB, kCorpusC})) {
    if (std::find(kCorpusA.begin(), kCorpusA.end(), t) != kCorpusA.end()) continue;
    untrusted.insert(HashOf(t));
    if (!twice->HasEntry(HashOf(t))) left_out.insert(HashOf(t));
  }
  EXPECT_EQ(static_cast<size_t>(straight.calls()), untrusted.size());
  EXPECT_EQ(static_cast<size_t>(third.calls()), left_out.size());
  EXPECT_EQ(again->entries_added, 0u);
}

TEST(CorpusMergerTest, BiggerDestinationEntriesAreSupersededAndCompactionDropsThem) {
  ScratchDir dir;
  const std::string big = "abcabcabcabc";  // the same features as "abca", 3x the bytes
  auto dest = StoreWith(dir.Sub("dest"), kCampaign, {big, "q"});
  FakeExecutor executor;
  CorpusMerger merger(dest.get(), &executor, {kNow, nullptr});
  merger.AddInputs("dir", SourceOf({"abca", "xy"}));
  Result<MergeReport> report = merger.Run();
  ASSERT_TRUE(report.ok()) << report.status().message();
  const std::set<uint32_t> features = UnionOf({big, "q", "abca", "xy"});
  EXPECT_EQ(report->entries_superseded, 1u);
  EXPECT_TRUE(dest->HasEntry(HashOf(big)));  // marked, not yet deleted
  EXPECT_EQ(dest->GetAux(AuxTable::kSuperseded, HashOf(big))->has_value(), true);

  Result<CompactReport> compact = CompactStore(*dest);
  ASSERT_TRUE(compact.ok()) << compact.status().message();
  EXPECT_FALSE(dest->HasEntry(HashOf(big)));
  EXPECT_TRUE(dest->HasEntry(HashOf("q")));
  EXPECT_EQ(compact->entries_removed, 1u);
  EXPECT_EQ(compact->before.entries, compact->after.entries + 1);
  EXPECT_EQ(compact->before.raw_bytes, compact->after.raw_bytes + big.size());
  EXPECT_GT(compact->before.disk_bytes, 0u);
  EXPECT_GT(compact->after.disk_bytes, 0u);
  EXPECT_EQ(AuxCount(*dest, AuxTable::kSuperseded), 0u);
  EXPECT_EQ(FeaturesIn(*dest), features);
}

TEST(CorpusMergerTest, DestinationEntriesWithoutFeaturesAreExecutedOnceAndRewritten) {
  ScratchDir dir;
  auto dest = OpenOrFail(dir.Sub("dest"), kCampaign);
  const std::vector<uint8_t> seed = Bytes("seed input");
  ASSERT_TRUE(
      dest->PutEntry(HashOf("seed input"), seed.data(), seed.size(), MetaFor("seed input", {}))
          .ok());
  FakeExecutor executor;
  CorpusMerger merger(dest.get(), &executor, {kNow, nullptr});
  Result<MergeReport> report = merger.Run();
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(executor.calls(), 1);
  Result<EntryMeta> meta = dest->GetMeta(HashOf("seed input"));
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->features, FeaturesOf("seed input"));
  EXPECT_EQ(meta->origin, "seed");  // the entry's own metadata is kept
  EXPECT_EQ(report->entries_superseded, 0u);
}

TEST(CorpusMergerTest, RefusesADestinationOfAnotherBuildAndASourceOfAnotherTarget) {
  ScratchDir dir;
  { auto old = StoreWith(dir.Sub("old"), kOtherBuild, {"x"}); }
  auto dest = OpenOrFail(dir.Sub("old"), kCampaign);
  ExpectErrorMentions(CorpusMerger(dest.get(), nullptr).Run().status(), {"build-0"});
  auto fresh = OpenOrFail(dir.Sub("fresh"), kCampaign);
  auto alien = StoreWith(dir.Sub("alien"), {"other_target", "build-1"}, {"x"});
  CorpusMerger merger(fresh.get(), nullptr);
  merger.AddStore(alien.get());
  ExpectErrorMentions(merger.Run().status(), {"other_target", "merge_target"});
}

// A store made before the auxiliary tables existed: a reader sees them empty, a writer adds
// them.
TEST(CorpusMergerTest, StoresWithoutAuxiliaryTablesGainThemOnAWriterOpen) {
  ScratchDir dir;
  { auto store = StoreWith(dir.Sub("old"), kCampaign, {"abc"}); }
  {
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies({}, dir.Sub("old"), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (const std::string& name : names)
      descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open({}, dir.Sub("old"), descriptors, &handles, &db).ok());
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "merge" || names[i] == "superseded") {
        ASSERT_TRUE(db->DropColumnFamily(handles[i]).ok());
      }
    }
    for (rocksdb::ColumnFamilyHandle* h : handles)
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    delete db;
    names.clear();
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies({}, dir.Sub("old"), &names).ok());
    ASSERT_EQ(std::count(names.begin(), names.end(), "merge"), 0);
  }
  StoreOptions read_only;
  read_only.read_only = true;
  {
    auto reader = OpenOrFail(dir.Sub("old"), kCampaign, read_only);
    ASSERT_NE(reader, nullptr);
    EXPECT_FALSE(reader->GetAux(AuxTable::kSuperseded, "x")->has_value());
    EXPECT_EQ(AuxCount(*reader, AuxTable::kMergeState), 0u);
  }
  auto writer = OpenOrFail(dir.Sub("old"), kCampaign);
  ASSERT_NE(writer, nullptr);
  const std::pair<std::string, std::string> mark[] = {{"x", ""}};
  EXPECT_TRUE(writer->PutAux(AuxTable::kSuperseded, mark).ok());
  EXPECT_TRUE(writer->GetAux(AuxTable::kSuperseded, "x")->has_value());
  EXPECT_TRUE(writer->HasEntry(HashOf("abc")));
}

}  // namespace
}  // namespace pollen::storage
