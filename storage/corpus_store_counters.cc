// A corpus store's counter tables (storage/counter_tables.h): loading them at open, and
// choosing a new one at Compact with every entry's metadata rewritten over it.
#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "storage/corpus_store.h"
#include "storage/corpus_store_keys.h"
#include "storage/record_codec.h"
#include "storage/rocks_util.h"

namespace pollen::storage {
namespace {

// Rewritten entries are written in batches of about this many bytes.
constexpr size_t kRewriteBatchBytes = 4 << 20;

}  // namespace

Status CorpusStore::LoadCounterTables() {
  uint64_t current = 0;
  Status s = Scan(campaign_cf_, [&](std::string_view key, std::string_view value) -> Result<bool> {
    if (!key.starts_with(kCounterTablePrefix)) return true;
    Result<CounterTable> table = DecodeCounterTable(value);
    if (!table.ok() || key != CounterTableKey(table->id)) {
      return Status::Error("corpus store " + path_ + " is corrupted: " + PrintableKey(key) +
                           (table.ok() ? " holds counter table " + std::to_string(table->id)
                                       : ": " + table.status().message()));
    }
    current = std::max(current, table->id);
    tables_.Add(std::move(table).value());
    return true;
  });
  if (!s.ok()) return s;
  tables_.SetCurrent(current);  // the newest: the one the last Compact chose
  return Status::Ok();
}

Status CorpusStore::RebuildCounterTable() {
  std::unique_lock<std::shared_mutex> lock(entries_mutex_);
  CounterTableChooser chooser;
  Status s = ForEachEntry([&](std::string_view, const EntryMeta& meta) {
    chooser.Add(meta.features);
    return true;
  });
  if (!s.ok()) return s;
  std::vector<uint32_t> counters = chooser.Counters();
  const std::shared_ptr<const CounterTable> previous = tables_.current();
  uint64_t chosen = 0;
  if (previous != nullptr && previous->counters == counters) {
    chosen = previous->id;
  } else if (!counters.empty()) {
    CounterTable table{tables_.max_id() + 1, std::move(counters)};
    rocksdb::WriteBatch batch;
    rocksdb::Status put =
        batch.Put(campaign_cf_, CounterTableKey(table.id), EncodeCounterTable(table));
    if (put.ok() && stored_format_ < kStoreFormatVersion) {
      put = batch.Put(campaign_cf_, kFormatVersionKey, std::to_string(kStoreFormatVersion));
    }
    if (!put.ok()) return FromRocks(put, path_, "writing a counter table");
    if (Status w = Write("writing a counter table", &batch, /*sync=*/true); !w.ok()) return w;
    stored_format_ = kStoreFormatVersion;
    chosen = table.id;
    tables_.Add(std::move(table));
  }
  tables_.SetCurrent(chosen);

  // Every entry over the chosen table (or v1 without one). Nothing else writes entries
  // meanwhile, so the scan's snapshot is the store's current state.
  rocksdb::WriteBatch batch;
  auto write = [&]() -> Status {
    Status w = Write("rewriting entry metadata", &batch, options_.sync_writes);
    batch.Clear();
    return w;
  };
  s = Scan(meta_, [&](std::string_view hash, std::string_view value) -> Result<bool> {
    Result<EntryMeta> meta = tables_.Decode(value);
    if (!meta.ok()) {
      return Status::Error("corpus store " + path_ + ": entry " + PrintableKey(hash) + ": " +
                           meta.status().message());
    }
    const std::string encoded = tables_.Encode(*meta);
    if (encoded == value) return true;
    rocksdb::Status put = batch.Put(meta_, ToSlice(hash), encoded);
    if (!put.ok()) return FromRocks(put, path_, "rewriting entry " + PrintableKey(hash));
    if (batch.GetDataSize() >= kRewriteBatchBytes) {
      if (Status w = write(); !w.ok()) return w;
    }
    return true;
  });
  if (!s.ok()) return s;
  if (Status w = write(); !w.ok()) return w;

  // No entry refers to another table now.
  s = Scan(campaign_cf_, [&](std::string_view key, std::string_view) -> Result<bool> {
    if (key.starts_with(kCounterTablePrefix) && key != CounterTableKey(chosen)) {
      rocksdb::Status del = batch.Delete(campaign_cf_, ToSlice(key));
      if (!del.ok()) return FromRocks(del, path_, "deleting counter table " + PrintableKey(key));
    }
    return true;
  });
  if (!s.ok()) return s;
  return Write("deleting old counter tables", &batch, /*sync=*/true);
}

}  // namespace pollen::storage
