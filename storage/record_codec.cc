#include "storage/record_codec.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

#include "engine/coverage.h"

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

// Reads and checks the leading version byte: 1 to `newest`.
Result<uint8_t> ReadVersion(std::string_view* in, uint8_t newest) {
  if (in->empty()) return Status::Error("empty record");
  const uint8_t version = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  if (version == 0) return Status::Error("invalid record version 0");
  if (version > newest) {
    return Status::Error("record version " + std::to_string(version) +
                         " was written by a newer pollen (this build reads up to version " +
                         std::to_string(newest) + ")");
  }
  return version;
}

Status CheckFullyConsumed(std::string_view in) {
  if (in.empty()) return Status::Ok();
  return Status::Error(std::to_string(in.size()) + " unexpected trailing bytes");
}

void AppendDeltas(const std::vector<uint32_t>& sorted, std::string* out) {
  AppendVarint(sorted.size(), out);
  uint32_t previous = 0;
  for (uint32_t value : sorted) {
    AppendVarint(value - previous, out);
    previous = value;
  }
}

// What a delta list holds, for error messages (literals: no allocation per value read).
struct DeltaList {
  std::string_view item;    // "feature"
  std::string_view count;   // "feature count"
  std::string_view delta;   // "feature delta"
  uint64_t limit;           // every value is below this
  bool strictly_ascending;  // no value repeats the previous one
};

constexpr uint64_t kFeatureLimit = uint64_t{1} << 32;
constexpr DeltaList kFeatures{"feature", "feature count", "feature delta", kFeatureLimit, false};
constexpr DeltaList kExtras{"extra feature", "extra feature count", "extra feature delta",
                            kFeatureLimit, false};
constexpr DeltaList kCounters{"counter", "counter count", "counter delta", kCounterLimit, true};

// Reads what AppendDeltas wrote: a count, then that many deltas.
Result<std::vector<uint32_t>> ReadDeltas(std::string_view* in, const DeltaList& list) {
  Result<uint64_t> count = ReadVarint(in, list.count);
  if (!count.ok()) return count.status();
  // Every delta takes at least one byte: a larger count is garbage, and checking it first
  // keeps a corrupt count from turning into a huge allocation.
  if (*count > in->size()) {
    return Status::Error(std::string(list.count) + " " + std::to_string(*count) + " exceeds the " +
                         std::to_string(in->size()) + " remaining bytes");
  }
  std::vector<uint32_t> values;
  values.reserve(*count);
  uint64_t previous = 0;
  for (uint64_t i = 0; i < *count; ++i) {
    Result<uint64_t> delta = ReadVarint(in, list.delta);
    if (!delta.ok()) return delta.status();
    if (list.strictly_ascending && i > 0 && *delta == 0) {
      return Status::Error(std::string(list.item) + " " + std::to_string(i) +
                           " repeats the previous one");
    }
    // Both below 2^32 when the sum is computed: it cannot overflow.
    if (*delta >= list.limit || previous + *delta >= list.limit) {
      return Status::Error(std::string(list.item) + " " + std::to_string(i) + " is not below " +
                           std::to_string(list.limit));
    }
    previous += *delta;
    values.push_back(static_cast<uint32_t>(previous));
  }
  return values;
}

// The fields that every EntryMeta version starts with, after the version byte.
void AppendEntryHeader(const EntryMeta& meta, std::string* out) {
  AppendVarint(meta.size, out);
  AppendVarint(meta.exec_time_us, out);
  AppendVarint(ZigZag(meta.first_seen_unix_ms), out);
  AppendBytes(meta.origin, out);
}

Status ReadEntryHeader(std::string_view* in, EntryMeta* meta) {
  Result<uint64_t> size = ReadVarint(in, "size");
  if (!size.ok()) return size.status();
  meta->size = *size;
  Result<uint64_t> exec_time = ReadVarint(in, "exec time");
  if (!exec_time.ok()) return exec_time.status();
  meta->exec_time_us = *exec_time;
  Result<uint64_t> first_seen = ReadVarint(in, "first seen time");
  if (!first_seen.ok()) return first_seen.status();
  meta->first_seen_unix_ms = UnZigZag(*first_seen);
  Result<std::string_view> origin = ReadBytes(in, "origin");
  if (!origin.ok()) return origin.status();
  meta->origin = std::string(*origin);
  return Status::Ok();
}

uint32_t Slot(std::string_view slots, size_t i) {
  return (static_cast<uint8_t>(slots[i / 2]) >> (4 * (i % 2))) & 0xf;
}

// Reads the v2 features (after the header): table id, slots, extras; see the header.
Result<std::vector<uint32_t>> ReadLaidOutFeatures(std::string_view* in,
                                                  const CounterTableLookup& tables) {
  Result<uint64_t> table_id = ReadVarint(in, "counter table id");
  if (!table_id.ok()) return table_id.status();
  if (*table_id == 0) return Status::Error("invalid counter table id 0");
  const CounterTable* table = tables ? tables(*table_id) : nullptr;
  if (table == nullptr) {
    return Status::Error("refers to counter table " + std::to_string(*table_id) +
                         ", which the store does not have");
  }
  const std::vector<uint32_t>& counters = table->counters;
  const size_t slot_bytes = (counters.size() + 1) / 2;
  if (slot_bytes > in->size()) {
    return Status::Error("truncated slots: counter table " + std::to_string(*table_id) + " needs " +
                         std::to_string(slot_bytes) + " bytes, " + std::to_string(in->size()) +
                         " remain");
  }
  const std::string_view slots = in->substr(0, slot_bytes);
  in->remove_prefix(slot_bytes);
  if (counters.size() % 2 == 1 && (static_cast<uint8_t>(slots.back()) >> 4) != 0) {
    return Status::Error("the unused last slot is not 0");
  }
  std::vector<uint32_t> laid_out;
  laid_out.reserve(counters.size());
  for (size_t i = 0; i < counters.size(); ++i) {
    const uint32_t slot = Slot(slots, i);
    if (slot == 0) continue;
    if (slot > engine::kBucketsPerCounter) {
      return Status::Error("slot " + std::to_string(i) + " holds " + std::to_string(slot) +
                           " (at most " + std::to_string(engine::kBucketsPerCounter) + ")");
    }
    laid_out.push_back(engine::MakeFeature(counters[i], slot - 1));
  }
  Result<std::vector<uint32_t>> extras = ReadDeltas(in, kExtras);
  if (!extras.ok()) return extras.status();
  // Canonical form: an extra of a counter in the table comes after that counter's slot.
  size_t j = 0;
  for (uint32_t extra : *extras) {
    const uint32_t counter = engine::FeatureCounter(extra);
    while (j < counters.size() && counters[j] < counter) ++j;
    if (j < counters.size() && counters[j] == counter &&
        (Slot(slots, j) == 0 || Slot(slots, j) - 1 > engine::FeatureBucket(extra))) {
      return Status::Error("extra feature " + std::to_string(extra) + " belongs in slot " +
                           std::to_string(j));
    }
  }
  if (extras->empty()) return laid_out;
  std::vector<uint32_t> features;
  features.reserve(laid_out.size() + extras->size());
  std::merge(laid_out.begin(), laid_out.end(), extras->begin(), extras->end(),
             std::back_inserter(features));
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
  out.push_back(static_cast<char>(1));
  AppendEntryHeader(meta, &out);
  AppendDeltas(meta.features, &out);
  return out;
}

std::string EncodeEntryMeta(const EntryMeta& meta, const CounterTable& table) {
  POLLEN_CHECK(std::is_sorted(meta.features.begin(), meta.features.end()));
  POLLEN_CHECK(table.id > 0);
  const std::vector<uint32_t>& counters = table.counters;
  std::string slots((counters.size() + 1) / 2, '\0');
  std::vector<uint32_t> extras;
  size_t j = 0;
  for (uint32_t feature : meta.features) {
    const uint32_t counter = engine::FeatureCounter(feature);
    while (j < counters.size() && counters[j] < counter) ++j;
    if (j < counters.size() && counters[j] == counter && Slot(slots, j) == 0) {
      slots[j / 2] = static_cast<char>(static_cast<uint8_t>(slots[j / 2]) |
                                       ((engine::FeatureBucket(feature) + 1) << (4 * (j % 2))));
    } else {
      extras.push_back(feature);  // the counter is not in the table, or its slot is taken
    }
  }
  std::string out;
  out.reserve(24 + meta.origin.size() + slots.size() + extras.size() * 2);
  out.push_back(static_cast<char>(2));
  AppendEntryHeader(meta, &out);
  AppendVarint(table.id, &out);
  out += slots;
  AppendDeltas(extras, &out);
  return out;
}

Result<EntryMeta> DecodeEntryMeta(std::string_view bytes, const CounterTableLookup& tables) {
  static constexpr std::string_view kName = "entry metadata";
  std::string_view in = bytes;
  Result<uint8_t> version = ReadVersion(&in, kEntryMetaVersion);
  if (!version.ok()) return Fail(kName, version.status().message());
  EntryMeta meta;
  if (Status s = ReadEntryHeader(&in, &meta); !s.ok()) return Fail(kName, s.message());
  Result<std::vector<uint32_t>> features =
      *version == 1 ? ReadDeltas(&in, kFeatures) : ReadLaidOutFeatures(&in, tables);
  if (!features.ok()) return Fail(kName, features.status().message());
  meta.features = std::move(features).value();
  if (Status s = CheckFullyConsumed(in); !s.ok()) return Fail(kName, s.message());
  return meta;
}

Result<uint64_t> EntryMetaTableId(std::string_view bytes) {
  static constexpr std::string_view kName = "entry metadata";
  std::string_view in = bytes;
  Result<uint8_t> version = ReadVersion(&in, kEntryMetaVersion);
  if (!version.ok()) return Fail(kName, version.status().message());
  if (*version == 1) return uint64_t{0};
  EntryMeta header;
  if (Status s = ReadEntryHeader(&in, &header); !s.ok()) return Fail(kName, s.message());
  Result<uint64_t> table_id = ReadVarint(&in, "counter table id");
  if (!table_id.ok()) return Fail(kName, table_id.status().message());
  return *table_id;
}

std::string EncodeCrashRecord(const CrashRecord& record) {
  std::string out;
  out.reserve(32 + record.kind.size() + record.input.size() + record.report.size());
  out.push_back(static_cast<char>(kCrashRecordVersion));
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
  if (Result<uint8_t> v = ReadVersion(&in, kCrashRecordVersion); !v.ok()) {
    return Fail(kName, v.status().message());
  }
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

std::string EncodeCounterTable(const CounterTable& table) {
  POLLEN_CHECK(table.id > 0);
  POLLEN_CHECK(std::adjacent_find(table.counters.begin(), table.counters.end(),
                                  std::greater_equal<uint32_t>()) == table.counters.end());
  POLLEN_CHECK(table.counters.empty() || table.counters.back() < kCounterLimit);
  std::string out;
  out.reserve(12 + table.counters.size() * 2);
  out.push_back(static_cast<char>(kCounterTableVersion));
  AppendVarint(table.id, &out);
  AppendDeltas(table.counters, &out);
  return out;
}

Result<CounterTable> DecodeCounterTable(std::string_view bytes) {
  static constexpr std::string_view kName = "counter table";
  std::string_view in = bytes;
  if (Result<uint8_t> v = ReadVersion(&in, kCounterTableVersion); !v.ok()) {
    return Fail(kName, v.status().message());
  }
  CounterTable table;
  Result<uint64_t> id = ReadVarint(&in, "id");
  if (!id.ok()) return Fail(kName, id.status().message());
  if (*id == 0) return Fail(kName, "invalid id 0");
  table.id = *id;
  Result<std::vector<uint32_t>> counters = ReadDeltas(&in, kCounters);
  if (!counters.ok()) return Fail(kName, counters.status().message());
  table.counters = std::move(counters).value();
  if (Status s = CheckFullyConsumed(in); !s.ok()) return Fail(kName, s.message());
  return table;
}

}  // namespace pollen::storage
