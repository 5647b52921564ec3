#include "engine/shm_layout.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

// The coordinator and the worker (a separately built target binary, possibly built from an
// older or newer Pollen) both read WorkerShmHeader. These checks pin its layout so that an
// accidental change (a field inserted, reordered or resized) fails here.
//
// If you change the layout on purpose: bump WorkerShmHeader::kVersion (and
// schema/worker.capnp's workerProtocolVersion if the protocol changes too), then update the
// expected values below.
static_assert(std::is_standard_layout_v<WorkerShmHeader>);
static_assert(std::is_trivially_copyable_v<WorkerShmHeader>);
static_assert(WorkerShmHeader::kVersion == 10, "layout changed? update the offsets below too");
static_assert(offsetof(WorkerShmHeader, magic) == 0);
static_assert(offsetof(WorkerShmHeader, version) == 8);
static_assert(offsetof(WorkerShmHeader, max_input) == 12);
static_assert(offsetof(WorkerShmHeader, max_features) == 16);
static_assert(offsetof(WorkerShmHeader, entry_size) == 20);
static_assert(offsetof(WorkerShmHeader, crossover_size) == 24);
static_assert(offsetof(WorkerShmHeader, phase) == 28);
static_assert(offsetof(WorkerShmHeader, runs) == 32);
static_assert(offsetof(WorkerShmHeader, total_runs) == 40);
static_assert(offsetof(WorkerShmHeader, chain_rng_state) == 48);
static_assert(offsetof(WorkerShmHeader, chain_rng_inc) == 56);
static_assert(offsetof(WorkerShmHeader, chain_length) == 64);
static_assert(offsetof(WorkerShmHeader, raw_in_mem) == 68);
static_assert(offsetof(WorkerShmHeader, raw_size) == 72);
static_assert(offsetof(WorkerShmHeader, in_target) == 76);
static_assert(offsetof(WorkerShmHeader, exit_in_target) == 80);
static_assert(offsetof(WorkerShmHeader, exit_code) == 84);
static_assert(offsetof(WorkerShmHeader, feature_count) == 88);
static_assert(offsetof(WorkerShmHeader, mutation_len) == 92);
static_assert(offsetof(WorkerShmHeader, value_profile) == 96);
static_assert(offsetof(WorkerShmHeader, mutant_hooks_off) == 100);
static_assert(offsetof(WorkerShmHeader, cmp_snapshot) == 104);
// CmpTable is copied verbatim into the header: its size is part of the layout too.
// (64 ints, 32 words, 256 one-byte pairs of 4 bytes, 512 ints by site and their order of
// 2 bytes each, four counts, padded to 8 bytes)
static_assert(offsetof(CmpTable, site_ints) == 64 * 24 + 32 * 67 + 256 * 4);
static_assert(sizeof(CmpTable) ==
              (64 * 24 + 32 * 67 + 256 * 4 + 512 * 24 + 512 * 2 + 4 * 4 + 7) / 8 * 8);
static_assert(offsetof(WorkerShmHeader, length_fields) == 104 + sizeof(CmpTable));
// So are the length fields (16 fields of 12 bytes and a count) and the learned words
// (64 words of 40 bytes, a count and a reserved word).
static_assert(sizeof(LengthFields) == 16 * 12 + 4);
static_assert(sizeof(LearnedWords) == 64 * 40 + 8);
static_assert(offsetof(WorkerShmHeader, learned) == 104 + sizeof(CmpTable) + sizeof(LengthFields));
// (padded to the alignment of its 8-byte fields)
static_assert(sizeof(WorkerShmHeader) ==
              (104 + sizeof(CmpTable) + sizeof(LengthFields) + sizeof(LearnedWords) + 7) / 8 * 8);

// The global coverage map's header, read by every worker.
static_assert(offsetof(GlobalCoverageHeader, magic) == 0);
static_assert(offsetof(GlobalCoverageHeader, capacity) == 8);
static_assert(offsetof(GlobalCoverageHeader, num_counters) == 16);
static_assert(sizeof(GlobalCoverageHeader) == 64);
static_assert(kGlobalCoverageDataOffset == 64);

TEST(ShmLayoutTest, HeaderMagicsSpellTheirNames) {
  uint64_t magic = WorkerShmHeader::kMagic;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&magic), 8), "POLNSHM1");
  magic = GlobalCoverageHeader::kMagic;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&magic), 8), "POLNCOV1");
}

TEST(ShmLayoutTest, AlignRoundsUpToSixtyFour) {
  EXPECT_EQ(WorkerShmLayout::Align(0), 0u);
  EXPECT_EQ(WorkerShmLayout::Align(1), 64u);
  EXPECT_EQ(WorkerShmLayout::Align(63), 64u);
  EXPECT_EQ(WorkerShmLayout::Align(64), 64u);
  EXPECT_EQ(WorkerShmLayout::Align(65), 128u);
}

struct Sizes {
  uint32_t max_input;
  uint32_t max_features;
};

const std::vector<Sizes>& AllSizes() {
  static const std::vector<Sizes> sizes = {
      {1, 1},   {1, 1u << 20}, {1u << 20, 1}, {1u << 20, 1u << 20}, {4096, 65536},
      {63, 15}, {64, 16},      {65, 17},      {100000, 12345},      {0xffffffffu, 0xffffffffu},
  };
  return sizes;
}

TEST(ShmLayoutTest, AreasAreAlignedAndDoNotOverlap) {
  for (const Sizes& s : AllSizes()) {
    SCOPED_TRACE(testing::Message()
                 << "max_input=" << s.max_input << " max_features=" << s.max_features);
    WorkerShmLayout l = WorkerShmLayout::For(s.max_input, s.max_features);
    for (size_t offset :
         {l.entry_offset, l.crossover_offset, l.raw_offset, l.features_offset, l.total_size}) {
      EXPECT_EQ(offset % 64, 0u) << offset;
    }
    // Each area starts after the previous one ends.
    EXPECT_GE(l.entry_offset, sizeof(WorkerShmHeader));
    EXPECT_GE(l.crossover_offset, l.entry_offset + s.max_input);
    EXPECT_GE(l.raw_offset, l.crossover_offset + s.max_input);
    EXPECT_GE(l.features_offset, l.raw_offset + s.max_input);
    EXPECT_GE(l.total_size, l.features_offset + size_t{s.max_features} * sizeof(uint32_t));
    // And no more than the alignment's padding is wasted.
    EXPECT_LT(l.entry_offset, sizeof(WorkerShmHeader) + 64);
    EXPECT_LT(l.crossover_offset, l.entry_offset + s.max_input + 64);
    EXPECT_LT(l.total_size, l.features_offset + size_t{s.max_features} * sizeof(uint32_t) + 64);
  }
}

TEST(ShmLayoutTest, ViewPointersMatchTheOffsets) {
  for (const Sizes& s : AllSizes()) {
    SCOPED_TRACE(testing::Message()
                 << "max_input=" << s.max_input << " max_features=" << s.max_features);
    WorkerShmLayout l = WorkerShmLayout::For(s.max_input, s.max_features);
    // The view only computes addresses: a fake base is enough, nothing is dereferenced.
    alignas(64) static uint8_t base[64];
    WorkerShmView view(base, l);
    ASSERT_TRUE(view.valid());
    auto offset_of = [&](const void* p) {
      return reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(base);
    };
    EXPECT_EQ(offset_of(view.header()), 0u);
    EXPECT_EQ(offset_of(view.entry()), l.entry_offset);
    EXPECT_EQ(offset_of(view.crossover()), l.crossover_offset);
    EXPECT_EQ(offset_of(view.raw()), l.raw_offset);
    EXPECT_EQ(offset_of(view.features()), l.features_offset);
    EXPECT_EQ(view.layout().total_size, l.total_size);
  }
  EXPECT_FALSE(WorkerShmView().valid());
}

TEST(ShmLayoutTest, ExactOffsetsForTheDefaultSizes) {
  // Pins the arithmetic, not just its properties: a mapping made by one build must be read
  // the same way by another.
  WorkerShmLayout l = WorkerShmLayout::For(4096, 1000);
  size_t header = WorkerShmLayout::Align(sizeof(WorkerShmHeader));
  EXPECT_EQ(l.entry_offset, header);
  EXPECT_EQ(l.crossover_offset, header + 4096);
  EXPECT_EQ(l.raw_offset, header + 2 * 4096);
  EXPECT_EQ(l.features_offset, header + 3 * 4096);
  EXPECT_EQ(l.total_size, header + 3 * 4096 + 4032);  // 4000 bytes of features, aligned
}

TEST(ShmLayoutTest, HeaderFieldsLandWhereTheOtherSideReadsThem) {
  // The same pinning as the static_asserts, seen through raw bytes as a peer sees them.
  alignas(64) uint8_t bytes[sizeof(WorkerShmHeader)] = {};
  auto* h = reinterpret_cast<WorkerShmHeader*>(bytes);
  h->magic = WorkerShmHeader::kMagic;
  h->version = WorkerShmHeader::kVersion;
  h->max_input = 0x11223344;
  h->runs = 0x0102030405060708ULL;
  h->chain_rng_state = 0xa1a2a3a4a5a6a7a8ULL;
  h->chain_length = 0x55667788;
  h->raw_size = 0x99aabbcc;
  h->value_profile = 0x13572468;
  h->cmp_snapshot.ints[0].a = 0xdeadbeefcafef00dULL;
  auto at = [&](size_t offset, size_t size) {
    uint64_t v = 0;
    std::memcpy(&v, bytes + offset, size);
    return v;
  };
  EXPECT_EQ(at(0, 8), WorkerShmHeader::kMagic);
  EXPECT_EQ(at(8, 4), WorkerShmHeader::kVersion);
  EXPECT_EQ(at(12, 4), 0x11223344u);
  EXPECT_EQ(at(32, 8), 0x0102030405060708ULL);
  EXPECT_EQ(at(48, 8), 0xa1a2a3a4a5a6a7a8ULL);
  EXPECT_EQ(at(64, 4), 0x55667788u);
  EXPECT_EQ(at(72, 4), 0x99aabbccu);
  EXPECT_EQ(at(96, 4), 0x13572468u);
  EXPECT_EQ(at(104, 8), 0xdeadbeefcafef00dULL);
}

}  // namespace
}  // namespace pollen::engine
