#include "storage/merge_state.h"

#include <algorithm>

#include "storage/record_codec.h"

namespace pollen::storage {
namespace {

constexpr uint8_t kMergeRecordVersion = 1;

}  // namespace

std::string EncodeMergeRecord(const MergeRecord& record, std::span<const uint8_t> input) {
  POLLEN_CHECK(std::is_sorted(record.features.begin(), record.features.end()));
  std::string out;
  out.reserve(16 + record.features.size() * 2 + record.failure_kind.size() + input.size());
  out.push_back(static_cast<char>(kMergeRecordVersion));
  out.push_back(static_cast<char>(record.state));
  AppendVarint(record.exec_time_us, &out);
  if (record.state == MergeInputState::kOk) {
    AppendVarint(record.features.size(), &out);
    uint32_t previous = 0;
    for (uint32_t f : record.features) {
      AppendVarint(f - previous, &out);
      previous = f;
    }
  } else if (record.state == MergeInputState::kFailed) {
    AppendVarint(record.failure_kind.size(), &out);
    out.append(record.failure_kind);
  }
  out.append(reinterpret_cast<const char*>(input.data()), input.size());
  return out;
}

Result<MergeInputState> PeekMergeState(std::string_view bytes) {
  if (bytes.size() < 2) return Status::Error("merge record: truncated");
  if (static_cast<uint8_t>(bytes[0]) != kMergeRecordVersion) {
    return Status::Error("merge record: unknown version " +
                         std::to_string(static_cast<uint8_t>(bytes[0])));
  }
  const uint8_t state = static_cast<uint8_t>(bytes[1]);
  if (state > static_cast<uint8_t>(MergeInputState::kFailed)) {
    return Status::Error("merge record: unknown state " + std::to_string(state));
  }
  return static_cast<MergeInputState>(state);
}

Result<MergeRecord> DecodeMergeRecord(std::string_view bytes) {
  Result<MergeInputState> state = PeekMergeState(bytes);
  if (!state.ok()) return state.status();
  MergeRecord record;
  record.state = *state;
  std::string_view in = bytes.substr(2);
  Result<uint64_t> exec = ReadVarint(&in, "merge record exec time");
  if (!exec.ok()) return exec.status();
  record.exec_time_us = *exec;
  if (record.state == MergeInputState::kOk) {
    Result<uint64_t> n = ReadVarint(&in, "merge record feature count");
    if (!n.ok()) return n.status();
    if (*n > in.size()) return Status::Error("merge record: feature count beyond its bytes");
    record.features.reserve(*n);
    uint64_t previous = 0;
    for (uint64_t i = 0; i < *n; ++i) {
      Result<uint64_t> delta = ReadVarint(&in, "merge record feature");
      if (!delta.ok()) return delta.status();
      previous += *delta;
      if (previous > UINT32_MAX) return Status::Error("merge record: feature beyond 32 bits");
      record.features.push_back(static_cast<uint32_t>(previous));
    }
  } else if (record.state == MergeInputState::kFailed) {
    Result<uint64_t> len = ReadVarint(&in, "merge record failure kind");
    if (!len.ok()) return len.status();
    if (*len > in.size()) return Status::Error("merge record: failure kind truncated");
    record.failure_kind = std::string(in.substr(0, *len));
    in.remove_prefix(*len);
  }
  record.input = in;
  return record;
}

}  // namespace pollen::storage
