// Length fields of a corpus entry, so that a mutation can insert a whole record and grow
// every length that encloses it (TLV inside TLV, chunks, packets in frames).
//
// Learned from the entry's own run (cmp_sites.h, the trace of comparisons): a parser compares
// each length it reads with the room left (`len > n - 3`), so a compared value v found in the
// entry as a field of 1, 2 or 4 bytes at offset X, with X + width + v within the entry, is
// taken as the length of the v bytes after it. All the fields of an entry share one layout
// (width and byte order): the one that explains the most compared values.
// A plain struct with no pointers: it goes into the worker's shared memory with the cmp
// snapshot, so the coordinator's replay of a chain reads the same fields.
#ifndef POLLEN_ENGINE_LENGTH_FIELDS_H_
#define POLLEN_ENGINE_LENGTH_FIELDS_H_

#include <cstddef>
#include <cstdint>

#include "engine/cmp_sites.h"

namespace pollen::engine {

struct LengthFields {
  static constexpr size_t kMax = 16;
  struct Field {
    uint32_t offset;
    uint32_t value;  // the length: the field covers [offset + width, offset + width + value)
    uint8_t width;   // 1, 2 or 4
    uint8_t big_endian;
    uint8_t reserved[2];
  };
  Field fields[kMax];  // sorted by offset
  uint32_t count;
};

// Fills `out` from the trace of `log` (filled in kLearn mode by the run of entry[0, size)).
void FindLengthFields(const CmpSiteLog& log, const uint8_t* entry, size_t size, LengthFields* out);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_LENGTH_FIELDS_H_
