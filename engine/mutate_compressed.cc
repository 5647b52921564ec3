// Mutations inside zlib streams (engine/zlib_stream.h): a stream is inflated, one mutation
// of the table is applied to its content, and the content goes back as stored blocks, with
// the length field that encloses the stream (PNG's chunk length) grown or shrunk to match.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/int_field.h"
#include "engine/mutation_ops.h"
#include "engine/zlib_stream.h"

namespace pollen::engine::mutation {
namespace {

// Bytes searched for a header per call (as many as MutateBase64 reads), so that inputs
// without a stream cost little.
constexpr size_t kMaxScan = 1024;
// Candidate headers inflated per call: random bytes pass the header check about once in
// 2,000 pairs, and most fail in their first block, but one that decodes as fixed Huffman
// codes can run until the output is full.
constexpr int kMaxTries = 3;
// How far before a stream a length field that encloses it is looked for: PNG's chunk
// length stands before the chunk type, a keyword of up to 79 bytes, its NUL and the method.
constexpr size_t kMaxLengthReach = 96;

struct LengthField {
  size_t offset = 0;
  bool big_endian = true;
  size_t span_end = 0;  // where the bytes it counts end
};

// The 32-bit length field closest before `begin` whose span holds it and ends inside the
// input: a field at f with value v whose span starts right after it or after 4 bytes (a
// type, as in PNG) and runs v bytes.
bool EnclosingField(const uint8_t* data, size_t size, size_t begin, LengthField* out) {
  size_t lowest = begin > kMaxLengthReach ? begin - kMaxLengthReach : 0;
  for (size_t f = begin; f-- > lowest;) {
    if (f + 4 > begin) continue;
    for (bool be : {true, false}) {
      uint64_t v = LoadField(data + f, 4, be);
      for (size_t gap : {size_t{0}, size_t{4}}) {
        size_t span = f + 4 + gap;
        if (span <= begin && begin < span + v && span + v <= size) {
          *out = LengthField{f, be, static_cast<size_t>(span + v)};
          return true;
        }
      }
    }
  }
  return false;
}

// A stream from a random place on (wrapping), read up to the end of its enclosing field's
// span when it has one, else to the input's end; its content in `out`.
bool FindStream(Ctx& c, uint8_t* out, ZlibStream* s, LengthField* field, bool* has_field) {
  if (c.size < 8) return false;
  size_t i = c.rng.BelowSize(c.size);
  int tries = 0;
  for (size_t scanned = 0; scanned < std::min(c.size, kMaxScan); scanned++, i++) {
    if (i >= c.size) i = 0;
    if (i + 8 > c.size || !IsZlibHeader(c.data[i], c.data[i + 1])) continue;
    *has_field = EnclosingField(c.data, c.size, i, field);
    size_t limit = *has_field ? field->span_end : c.size;
    if (InflateZlibAt(c.data, i, limit, out, c.max_size, s)) return true;
    if (++tries == kMaxTries) return false;
  }
  return false;
}

}  // namespace

size_t MutateZlib(Ctx& c) {
  ZlibStream s;
  LengthField field;
  bool has_field = false;
  uint8_t* work = c.aux;
  uint8_t* spare = c.aux + c.max_size;
  if (!FindStream(c, work, &s, &field, &has_field)) return kNoChange;
  size_t room = c.max_size - (c.size - (s.end - s.begin));  // for the stream's new form
  size_t limit = StoredZlibLimit(room);
  if (room < StoredZlibSize(0) || s.decoded > limit) return kNoChange;
  const MutationSources sources = NestedSources(c.src);
  Ctx inner{work, s.decoded, limit, c.rng, sources, spare, nullptr, c.word, c.word_size};
  size_t m = MutateNested(inner);
  if (m == kNoChange) return kNoChange;
  size_t stored = WriteStoredZlib(work, m, c.scratch);
  if (has_field) {
    int64_t grown = static_cast<int64_t>(LoadField(c.data + field.offset, 4, field.big_endian)) +
                    static_cast<int64_t>(stored) - static_cast<int64_t>(s.end - s.begin);
    if (grown >= 0 && FitsIn(static_cast<uint64_t>(grown), 4)) {
      StoreField(c.data + field.offset, 4, field.big_endian, static_cast<uint64_t>(grown));
    }
  }
  std::memmove(c.data + s.begin + stored, c.data + s.end, c.size - s.end);
  std::memcpy(c.data + s.begin, c.scratch, stored);
  return c.size - (s.end - s.begin) + stored;
}

}  // namespace pollen::engine::mutation
