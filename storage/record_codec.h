// A small versioned binary encoding for EntryMeta and CrashRecord, as stored in RocksDB.
//
// Layout (all integers LEB128 varints, signed ones zigzag-encoded first):
//   EntryMeta v1:   0x01 size exec_time_us zz(first_seen_unix_ms) len origin
//                   n_features delta_0 delta_1 ... (features sorted: each delta is the
//                   difference from the previous feature, the first from 0)
//   CrashRecord v1: 0x01 len kind len input len report count zz(first_seen) zz(last_seen)
//
// The encoding is canonical: minimal varints, no trailing bytes. So a successful decode
// re-encodes to exactly the same bytes, and anything else is rejected.
//
// Decoding treats its input as untrusted (it comes from disk): it never reads out of
// bounds, never allocates more than the input could describe, and reports every problem as
// an error. A record written by a newer encoder (version byte > kRecordVersion) is an error
// that names the version. Evolution rule: a new version may only append fields.
//
// Thread safety: all functions are pure and may be called concurrently.
#ifndef POLLEN_STORAGE_RECORD_CODEC_H_
#define POLLEN_STORAGE_RECORD_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/status.h"
#include "storage/records.h"

namespace pollen::storage {

// The record version that EncodeEntryMeta / EncodeCrashRecord write.
inline constexpr uint8_t kRecordVersion = 1;

// Appends the LEB128 encoding of `value` (1 to 10 bytes) to `out`.
void AppendVarint(uint64_t value, std::string* out);

// Reads one minimal LEB128 varint from `*in` and advances `*in` past it.
// Errors (naming `what`): truncated, longer than 10 bytes, overflowing 64 bits, non-minimal.
Result<uint64_t> ReadVarint(std::string_view* in, std::string_view what);

// Returns the encoding of `meta`.
// Precondition: meta.features is sorted ascending (a caller bug otherwise: CHECK-fails).
std::string EncodeEntryMeta(const EntryMeta& meta);

// Decodes bytes written by EncodeEntryMeta. Never crashes on garbage: returns an error.
Result<EntryMeta> DecodeEntryMeta(std::string_view bytes);

// Returns the encoding of `record`.
std::string EncodeCrashRecord(const CrashRecord& record);

// Decodes bytes written by EncodeCrashRecord. Never crashes on garbage: returns an error.
Result<CrashRecord> DecodeCrashRecord(std::string_view bytes);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_RECORD_CODEC_H_
