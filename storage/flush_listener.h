// Follows RocksDB's background flushes for a store whose entries skip the write-ahead log
// (StoreOptions::log_entries false): the highest sequence number written to SST files so
// far, which CorpusStore::durable_mark() reports (internal to storage/).
//
// Thread safety: OnFlushCompleted runs on RocksDB's flush threads; flushed() and Advance()
// from any thread.
#ifndef POLLEN_STORAGE_FLUSH_LISTENER_H_
#define POLLEN_STORAGE_FLUSH_LISTENER_H_

#include <atomic>
#include <cstdint>

#include "rocksdb/listener.h"

namespace pollen::storage {

class FlushListener : public rocksdb::EventListener {
 public:
  explicit FlushListener(uint64_t start) : flushed_(start) {}

  // With atomic_flush every column family is flushed up to the same write, so the largest
  // sequence number of any flushed memtable bounds the writes now on disk.
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Advance(info.largest_seqno);
  }

  // Every write up to `mark` is on disk (a Flush() that waited returned).
  void Advance(uint64_t mark) {
    uint64_t seen = flushed_.load(std::memory_order_relaxed);
    while (seen < mark && !flushed_.compare_exchange_weak(seen, mark)) {
    }
  }

  uint64_t flushed() const { return flushed_.load(); }

 private:
  std::atomic<uint64_t> flushed_;
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_FLUSH_LISTENER_H_
