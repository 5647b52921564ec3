#include "engine/length_fields.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/mutator.h"
#include "engine/rng.h"

namespace pollen::engine {
namespace {

using Bytes = std::vector<uint8_t>;

// type (1 byte) | length (2 bytes, big-endian) | value
Bytes Record(uint8_t type, const Bytes& value) {
  Bytes r = {type, uint8_t(value.size() >> 8), uint8_t(value.size())};
  r.insert(r.end(), value.begin(), value.end());
  return r;
}

// What a TLV parser compares: each record's length with the room left after its header.
void ParseAndLog(const uint8_t* p, size_t n, CmpSiteLog& log) {
  while (n >= 3) {
    size_t len = size_t{p[1]} << 8 | p[2];
    log.Record(0x1000, len, n - 3, 8);
    if (len > n - 3) return;
    if (p[0] == 1) ParseAndLog(p + 3, len, log);
    p += 3 + len;
    n -= 3 + len;
  }
}

// Whether every length is consistent: the records tile the input exactly at every level.
bool Consistent(const uint8_t* p, size_t n) {
  while (n > 0) {
    if (n < 3) return false;
    size_t len = size_t{p[1]} << 8 | p[2];
    if (len > n - 3) return false;
    if (p[0] == 1 && !Consistent(p + 3, len)) return false;
    p += 3 + len;
    n -= 3 + len;
  }
  return true;
}

int Depth(const uint8_t* p, size_t n) {
  int best = 0;
  while (n >= 3) {
    size_t len = size_t{p[1]} << 8 | p[2];
    if (len > n - 3) break;
    if (p[0] == 1) best = std::max(best, 1 + Depth(p + 3, len));
    p += 3 + len;
    n -= 3 + len;
  }
  return best;
}

Bytes NestedEntry() {
  Bytes leaf = Record(2, {'a', 'b', 'c', 'd'});
  Bytes inner = Record(1, leaf);
  Bytes outer = Record(1, inner);
  Bytes tail = Record(3, {'z'});
  outer.insert(outer.end(), tail.begin(), tail.end());
  return outer;
}

// The length fields learned from the parser's run on `entry`.
LengthFields Learn(const Bytes& entry) {
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kLearn;
  ParseAndLog(entry.data(), entry.size(), log);
  LengthFields lf;
  FindLengthFields(log, entry.data(), entry.size(), &lf);
  return lf;
}

TEST(LengthFieldsTest, FindsTheLengthsOfNestedRecords) {
  Bytes entry = NestedEntry();
  LengthFields lf = Learn(entry);
  // The four records' length fields, at offsets 1, 4, 7 and 14, big-endian, 2 bytes.
  std::vector<uint32_t> offsets;
  for (uint32_t i = 0; i < lf.count; i++) {
    if (lf.fields[i].width == 2 && lf.fields[i].big_endian) offsets.push_back(lf.fields[i].offset);
  }
  EXPECT_EQ(offsets, (std::vector<uint32_t>{1, 4, 7, 14}));
}

TEST(LengthFieldsTest, InsertRecordKeepsEveryLengthConsistent) {
  Bytes entry = NestedEntry();
  LengthFields lf = Learn(entry);
  MutationSources sources;
  sources.lengths = &lf;
  Mutator m(256);
  Rng rng = Rng::FromSeed(11);
  Bytes buf(256);
  int inserted = 0, consistent = 0, deeper = 0;
  for (int i = 0; i < 20000; i++) {
    std::memcpy(buf.data(), entry.data(), entry.size());
    size_t size = m.Mutate(buf.data(), entry.size(), rng, sources);
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "InsertRecord") continue;
    inserted++;
    if (Consistent(buf.data(), size)) consistent++;
    if (Depth(buf.data(), size) > Depth(entry.data(), entry.size())) deeper++;
  }
  ASSERT_GT(inserted, 100);
  // Most insertions keep the structure (a record's tag is 1 byte here, and k is 0 to 2),
  // and some nest a container inside itself: one level deeper.
  EXPECT_GT(consistent * 3, inserted);
  EXPECT_GT(deeper, 0);
}

}  // namespace
}  // namespace pollen::engine
