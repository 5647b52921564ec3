// The records of a merge's resumable state (AuxTable::kMergeState; see
// storage/corpus_merger.h), internal to storage/.
//
// Record v1: 0x01 state varint(exec_time_us) [ok: n_features delta... | failed: len kind]
//            input bytes (the rest of the value). Integers are LEB128 varints
//            (storage/record_codec.h); features are sorted, stored as deltas.
//
// Thread safety: pure functions.
#ifndef POLLEN_STORAGE_MERGE_STATE_H_
#define POLLEN_STORAGE_MERGE_STATE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace pollen::storage {

// Keys of the merge state table.
inline constexpr char kMergeBuildIdKey[] = "b";     // build id the results belong to
inline constexpr char kMergeStartKey[] = "t";       // decimal unix ms of the first start
inline constexpr char kMergeRecordPrefix[] = "r/";  // + input hash -> record

enum class MergeInputState : uint8_t { kPending = 0, kOk = 1, kFailed = 2 };

struct MergeRecord {
  MergeInputState state = MergeInputState::kPending;
  uint64_t exec_time_us = 0;
  std::vector<uint32_t> features;  // kOk: sorted
  std::string failure_kind;        // kFailed
  std::string_view input;          // points into the decoded bytes
};

// Encodes `record` with `input` as its bytes (record.input is ignored).
// Precondition: record.features is sorted.
std::string EncodeMergeRecord(const MergeRecord& record, std::span<const uint8_t> input);

// Decodes bytes written by EncodeMergeRecord; `bytes` must outlive the result's `input`.
// Untrusted input: every problem is an error.
Result<MergeRecord> DecodeMergeRecord(std::string_view bytes);

// The state of an encoded record without decoding the rest; an error if malformed.
Result<MergeInputState> PeekMergeState(std::string_view bytes);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_MERGE_STATE_H_
