// The counter tables of one open store (storage/records.h CounterTable), and the choice of a
// new one from the store's entries.
//
// A store keeps at most one current table: entries are written laid out over it
// (EntryMeta v2, storage/record_codec.h), or as v1 when there is none. CorpusStore::Compact
// chooses a new table, rewrites every entry over it and deletes the tables no entry refers
// to any more; until then, entries written over older tables still decode.
//
// Thread safety: CounterTables may be used from any number of threads. A table once added
// stays in memory for the object's lifetime (a scan that started before a rebuild may still
// meet entries laid out over an older one). CounterTableChooser is not thread-safe.
#ifndef POLLEN_STORAGE_COUNTER_TABLES_H_
#define POLLEN_STORAGE_COUNTER_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "storage/records.h"

namespace pollen::storage {

class CounterTables {
 public:
  // Adds `table` (read from the store, or just written to it). Precondition: no table with
  // its id was added before.
  void Add(CounterTable table);

  // Makes table `id` (added before) the one Encode lays entries out over; 0: none.
  void SetCurrent(uint64_t id);

  // The current table, null if none.
  std::shared_ptr<const CounterTable> current() const;

  // The largest id added, 0 if none.
  uint64_t max_id() const;

  // The encoding of `meta`: v2 over the current table, v1 without one.
  // Precondition: meta.features sorted.
  std::string Encode(const EntryMeta& meta) const;

  // Decodes an EntryMeta record written over any table added here (or none).
  Result<EntryMeta> Decode(std::string_view bytes) const;

 private:
  const CounterTable* Find(uint64_t id) const;

  mutable std::mutex mutex_;
  std::map<uint64_t, std::shared_ptr<const CounterTable>> tables_;
  std::shared_ptr<const CounterTable> current_;
};

// Chooses the counters of a store's table: those that at least 1/16 of the entries (and at
// least two) hit, at most kMaxCounters of them, the most hit first. A counter in the table
// costs every entry half a byte before compression; one left out costs each entry that hits
// it a delta varint. On the three stores measured in docs/storage.md, 1/16 came within 1.2%
// of the best of 1/4, 1/8, 1/16 and 1/32 on each.
class CounterTableChooser {
 public:
  static constexpr size_t kMaxCounters = 16384;  // 8 KiB of slots an entry, at most

  // Counts the counters of one entry's features (sorted).
  void Add(const std::vector<uint32_t>& features);

  // The chosen counters, ascending; empty when no counter qualifies.
  std::vector<uint32_t> Counters() const;

 private:
  uint64_t entries_ = 0;
  std::unordered_map<uint32_t, uint64_t> hits_;  // counter -> entries that hit it
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_COUNTER_TABLES_H_
