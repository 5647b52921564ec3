// A small versioned binary encoding for EntryMeta, CrashRecord and CounterTable, as stored
// in RocksDB.
//
// Layout (all integers LEB128 varints, signed ones zigzag-encoded first):
//   EntryMeta v1:    0x01 size exec_time_us zz(first_seen_unix_ms) len origin
//                    n_features delta_0 delta_1 ... (features sorted: each delta is the
//                    difference from the previous feature, the first from 0)
//   EntryMeta v2:    0x02 size exec_time_us zz(first_seen_unix_ms) len origin
//                    table_id slots n_extra delta_0 delta_1 ...
//                    The features laid out over CounterTable `table_id` (of U counters):
//                    `slots` is ceil(U/2) bytes, one 4-bit slot per counter of the table,
//                    low nibble first: 0 when the entry has no feature of that counter,
//                    1 + bucket for its smallest feature of that counter (engine/coverage.h:
//                    feature = counter * 8 + bucket). Every other feature (of a counter
//                    outside the table, or a second feature of a counter in it) is an
//                    "extra", sorted and delta-coded as in v1. Decoding merges both into the
//                    one sorted list that v1 holds.
//   CrashRecord v1:  0x01 len kind len input len report count zz(first_seen) zz(last_seen)
//   CounterTable v1: 0x01 id n_counters delta_0 delta_1 ... (strictly ascending)
//
// Why v2: a store's entries hit mostly the same counters, but in v1 each one spells them
// out as deltas, and an entry that differs from a similar one by a few features shifts
// every byte after each difference. Fixed slots keep similar entries byte-aligned, so zstd
// matches them in long runs (docs/storage.md has the measurements).
//
// The encoding is canonical: minimal varints, no trailing bytes, a v2 slot holds the
// smallest feature of its counter and the unused high nibble of an odd table is 0. So a
// successful decode re-encodes (in the same version, against the same table) to exactly
// the same bytes, and anything else is rejected.
//
// Decoding treats its input as untrusted (it comes from disk): it never reads out of
// bounds, never allocates more than the input could describe, and reports every problem as
// an error. A record written by a newer encoder (version byte above what this build reads)
// is an error that names the version. Evolution rule: a new version keeps the fields of the
// previous one in place and changes or appends only after them (v2 replaces the feature
// list, v1's last field).
//
// Thread safety: all functions are pure and may be called concurrently.
#ifndef POLLEN_STORAGE_RECORD_CODEC_H_
#define POLLEN_STORAGE_RECORD_CODEC_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/records.h"

namespace pollen::storage {

// The newest record versions this build writes and reads (EntryMeta v1 is still written,
// by EncodeEntryMeta without a table, and read).
inline constexpr uint8_t kEntryMetaVersion = 2;
inline constexpr uint8_t kCrashRecordVersion = 1;
inline constexpr uint8_t kCounterTableVersion = 1;

// Tables hold counters below this bound (a feature is counter * 8 + bucket in 32 bits).
inline constexpr uint64_t kCounterLimit = uint64_t{1} << 29;

// Appends the LEB128 encoding of `value` (1 to 10 bytes) to `out`.
void AppendVarint(uint64_t value, std::string* out);

// Reads one minimal LEB128 varint from `*in` and advances `*in` past it.
// Errors (naming `what`): truncated, longer than 10 bytes, overflowing 64 bits, non-minimal.
Result<uint64_t> ReadVarint(std::string_view* in, std::string_view what);

// Returns the v1 encoding of `meta`: no table needed to read it.
// Precondition: meta.features is sorted ascending (a caller bug otherwise: CHECK-fails).
std::string EncodeEntryMeta(const EntryMeta& meta);

// Returns the v2 encoding of `meta` laid out over `table`.
// Preconditions: meta.features sorted ascending, table.id > 0 (CHECK-fails otherwise).
std::string EncodeEntryMeta(const EntryMeta& meta, const CounterTable& table);

// Finds the counter table with the given id; null when there is none.
using CounterTableLookup = std::function<const CounterTable*(uint64_t id)>;

// Decodes bytes written by either EncodeEntryMeta. A v2 record needs its table from
// `tables` (which may be empty for a caller that only has v1 records): a table that
// `tables` lacks is an error naming its id. Never crashes on garbage: returns an error.
Result<EntryMeta> DecodeEntryMeta(std::string_view bytes, const CounterTableLookup& tables = {});

// The id of the table an encoded EntryMeta refers to: 0 for v1, which refers to none.
// Reads only the fields before it; an error if those are malformed.
Result<uint64_t> EntryMetaTableId(std::string_view bytes);

// Returns the encoding of `record`.
std::string EncodeCrashRecord(const CrashRecord& record);

// Decodes bytes written by EncodeCrashRecord. Never crashes on garbage: returns an error.
Result<CrashRecord> DecodeCrashRecord(std::string_view bytes);

// Returns the encoding of `table`.
// Preconditions: table.id > 0, counters strictly ascending and below kCounterLimit.
std::string EncodeCounterTable(const CounterTable& table);

// Decodes bytes written by EncodeCounterTable. Never crashes on garbage: returns an error.
Result<CounterTable> DecodeCounterTable(std::string_view bytes);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_RECORD_CODEC_H_
