#include "storage/record_codec.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace pollen::storage {
namespace {

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

int64_t UnZigZag(uint64_t u) { return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1)); }

void AppendBytes(std::string_view bytes, std::string* out) {
  AppendVarint(bytes.size(), out);
  out->append(bytes);
}

Status Fail(std::string_view record, std::string_view what) {
  return Status::Error(std::string(record) + ": " + std::string(what));
}

// Reads a length-prefixed byte string; the length may not exceed what remains.
Result<std::string_view> ReadBytes(std::string_view* in, std::string_view what) {
  Result<uint64_t> len = ReadVarint(in, what);
  if (!len.ok()) return len.status();
  if (*len > in->size()) {
    return Status::Error(std::string(what) + " declares " + std::to_string(*len) +
                         " bytes but only " + std::to_string(in->size()) + " remain");
  }
  std::string_view bytes = in->substr(0, *len);
  in->remove_prefix(*len);
  return bytes;
}

// Reads and checks the leading version byte.
Status ReadVersion(std::string_view* in) {
  if (in->empty()) return Status::Error("empty record");
  const uint8_t version = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  if (version == 0) return Status::Error("invalid record version 0");
  if (version > kRecordVersion) {
    return Status::Error("record version " + std::to_string(version) +
                         " was written by a newer pollen (this build reads up to version " +
                         std::to_string(kRecordVersion) + ")");
  }
  return Status::Ok();
}

Status CheckFullyConsumed(std::string_view in) {
  if (in.empty()) return Status::Ok();
  return Status::Error(std::to_string(in.size()) + " unexpected trailing bytes");
}

Result<std::vector<uint32_t>> ReadFeatures(std::string_view* in) {
  Result<uint64_t> count = ReadVarint(in, "feature count");
  if (!count.ok()) return count.status();
  // Every delta takes at least one byte: a larger count is garbage, and checking it first
  // keeps a corrupt count from turning into a huge allocation.
  if (*count > in->size()) {
    return Status::Error("feature count " + std::to_string(*count) + " exceeds the " +
                         std::to_string(in->size()) + " remaining bytes");
  }
  std::vector<uint32_t> features;
  features.reserve(*count);
  uint64_t previous = 0;
  for (uint64_t i = 0; i < *count; ++i) {
    Result<uint64_t> delta = ReadVarint(in, "feature delta");
    if (!delta.ok()) return delta.status();
    const uint64_t feature = previous + *delta;  // both < 2^32 here: cannot overflow
    if (*delta > std::numeric_limits<uint32_t>::max() ||
        feature > std::numeric_limits<uint32_t>::max()) {
      return Status::Error("feature " + std::to_string(i) + " does not fit in 32 bits");
    }
    features.push_back(static_cast<uint32_t>(feature));
    previous = feature;
  }
  return features;
}

}  // namespace

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

Result<uint64_t> ReadVarint(std::string_view* in, std::string_view what) {
  uint64_t value = 0;
  for (size_t i = 0; i < 10; ++i) {
    if (i >= in->size()) return Status::Error("truncated " + std::string(what));
    const uint8_t byte = static_cast<uint8_t>((*in)[i]);
    if (i == 9 && byte > 1) return Status::Error(std::string(what) + " overflows 64 bits");
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      if (i > 0 && byte == 0) return Status::Error("non-minimal varint for " + std::string(what));
      in->remove_prefix(i + 1);
      return value;
    }
  }
  return Status::Error(std::string(what) + " overflows 64 bits");  // unreachable: i == 9
}

std::string EncodeEntryMeta(const EntryMeta& meta) {
  POLLEN_CHECK(std::is_sorted(meta.features.begin(), meta.features.end()));
  std::string out;
  out.reserve(16 + meta.origin.size() + meta.features.size() * 2);
  out.push_back(static_cast<char>(kRecordVersion));
  AppendVarint(meta.size, &out);
  AppendVarint(meta.exec_time_us, &out);
  AppendVarint(ZigZag(meta.first_seen_unix_ms), &out);
  AppendBytes(meta.origin, &out);
  AppendVarint(meta.features.size(), &out);
  uint32_t previous = 0;
  for (uint32_t feature : meta.features) {
    AppendVarint(feature - previous, &out);
    previous = feature;
  }
  return out;
}

Result<EntryMeta> DecodeEntryMeta(std::string_view bytes) {
  static constexpr std::string_view kName = "entry metadata";
  std::string_view in = bytes;
  if (Status s = ReadVersion(&in); !s.ok()) return Fail(kName, s.message());
  EntryMeta meta;
  Result<uint64_t> size = ReadVarint(&in, "size");
  if (!size.ok()) return Fail(kName, size.status().message());
  meta.size = *size;
  Result<uint64_t> exec_time = ReadVarint(&in, "exec time");
  if (!exec_time.ok()) return Fail(kName, exec_time.status().message());
  meta.exec_time_us = *exec_time;
  Result<uint64_t> first_seen = ReadVarint(&in, "first seen time");
  if (!first_seen.ok()) return Fail(kName, first_seen.status().message());
  meta.first_seen_unix_ms = UnZigZag(*first_seen);
  Result<std::string_view> origin = ReadBytes(&in, "origin");
  if (!origin.ok()) return Fail(kName, origin.status().message());
  meta.origin = std::string(*origin);
  Result<std::vector<uint32_t>> features = ReadFeatures(&in);
  if (!features.ok()) return Fail(kName, features.status().message());
  meta.features = std::move(features).value();
  if (Status s = CheckFullyConsumed(in); !s.ok()) return Fail(kName, s.message());
  return meta;
}

std::string EncodeCrashRecord(const CrashRecord& record) {
  std::string out;
  out.reserve(32 + record.kind.size() + record.input.size() + record.report.size());
  out.push_back(static_cast<char>(kRecordVersion));
  AppendBytes(record.kind, &out);
  AppendBytes(
      std::string_view(reinterpret_cast<const char*>(record.input.data()), record.input.size()),
      &out);
  AppendBytes(record.report, &out);
  AppendVarint(record.count, &out);
  AppendVarint(ZigZag(record.first_seen_unix_ms), &out);
  AppendVarint(ZigZag(record.last_seen_unix_ms), &out);
  return out;
}

Result<CrashRecord> DecodeCrashRecord(std::string_view bytes) {
  static constexpr std::string_view kName = "crash record";
  std::string_view in = bytes;
  if (Status s = ReadVersion(&in); !s.ok()) return Fail(kName, s.message());
  CrashRecord record;
  Result<std::string_view> kind = ReadBytes(&in, "kind");
  if (!kind.ok()) return Fail(kName, kind.status().message());
  record.kind = std::string(*kind);
  Result<std::string_view> input = ReadBytes(&in, "input");
  if (!input.ok()) return Fail(kName, input.status().message());
  record.input.assign(input->begin(), input->end());
  Result<std::string_view> report = ReadBytes(&in, "report");
  if (!report.ok()) return Fail(kName, report.status().message());
  record.report = std::string(*report);
  Result<uint64_t> count = ReadVarint(&in, "count");
  if (!count.ok()) return Fail(kName, count.status().message());
  record.count = *count;
  Result<uint64_t> first_seen = ReadVarint(&in, "first seen time");
  if (!first_seen.ok()) return Fail(kName, first_seen.status().message());
  record.first_seen_unix_ms = UnZigZag(*first_seen);
  Result<uint64_t> last_seen = ReadVarint(&in, "last seen time");
  if (!last_seen.ok()) return Fail(kName, last_seen.status().message());
  record.last_seen_unix_ms = UnZigZag(*last_seen);
  if (Status s = CheckFullyConsumed(in); !s.ok()) return Fail(kName, s.message());
  return record;
}

}  // namespace pollen::storage
