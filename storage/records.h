// Plain records kept by the storage layer: what identifies a campaign, what is known about
// one corpus entry, and what is known about one distinct crash.
//
// These are values with no behaviour; storage/record_codec.h turns them into bytes and back.
#ifndef POLLEN_STORAGE_RECORDS_H_
#define POLLEN_STORAGE_RECORDS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pollen::storage {

// Which fuzzing campaign a store belongs to. `target` names the fuzz target (a store never
// mixes targets); `build_id` identifies one build of it (features depend on the build).
struct CampaignId {
  std::string target;
  std::string build_id;
};

// What the fuzzer learnt when it added one input to the corpus.
struct EntryMeta {
  uint64_t size = 0;               // bytes of the input
  std::vector<uint32_t> features;  // sorted ascending (duplicates allowed but pointless)
  uint64_t exec_time_us = 0;       // one execution, microseconds
  std::string origin;              // who found it: "seed", a mutator name, a peer id...
  int64_t first_seen_unix_ms = 0;
};

// A store-wide list of coverage counters that EntryMeta records may be laid out over
// (storage/record_codec.h, EntryMeta v2). A feature is counter * 8 + bucket
// (engine/coverage.h); the counters in the table are those that many entries of the store
// hit, so each entry gives each of them one 4-bit slot instead of a delta varint.
struct CounterTable {
  uint64_t id = 0;                 // > 0; no two tables of one store share an id
  std::vector<uint32_t> counters;  // strictly ascending, each < 2^29
};

// One distinct crash, keyed by its signature in the store.
struct CrashRecord {
  std::string kind;            // e.g. "heap-buffer-overflow", "timeout", "oom"
  std::vector<uint8_t> input;  // the smallest input known to reproduce it
  std::string report;          // sanitizer report of `input`
  uint64_t count = 0;          // how many times it was hit
  int64_t first_seen_unix_ms = 0;
  int64_t last_seen_unix_ms = 0;
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_RECORDS_H_
