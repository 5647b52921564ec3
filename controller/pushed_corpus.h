// The inputs pushed to one campaign by `pollen corpus push`: seeds and regression inputs
// that the campaign's nodes must run (docs/controller.md, "Pushed inputs").
//
// The controller cannot run the target, so a pushed input has no features. That is why it
// is kept here, in a store of its own (DATA/campaigns/<campaign>/_pushed/, a storage/
// CorpusStore), and not in a build's merged corpus: a merge there treats a featureless entry
// as one to execute and, having no executor, would fail; and a set cover must never drop
// an input nobody has measured yet. Pushed inputs belong to the campaign, not to a build: a
// node of any build pulls them. A node that finds coverage in one publishes it as usual
// (newInputs, with features), and it joins its build's merged corpus like any other input.
//
// Entries are numbered 1, 2, 3... in push order and never removed; an input whose hash was
// pushed before is not added again.
//
// Entries skip the store's write-ahead log (storage::StoreOptions::log_entries): written
// once, not twice, which is what makes a push keep pace with the stream (docs/decisions.md,
// "Pushed inputs skip the write-ahead log"). An entry is durable once RocksDB flushed it
// (each 64 MB, in the background) or MakeDurable() ran; a crash of the controller loses the
// others, and nothing outside this class has relied on them: nodes are told of durable
// entries only (durable_seq()), and a push's resume cursor never names a record past them
// (controller/push_sink.h), so the client sends the lost ones again. The store key of entry `seq` is its record name in
// pushed/<campaign> (controller/record_names.h). In memory: the hashes in push order and a
// hash -> seq index, built by one scan of the store when it opens (about 60 bytes per entry).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_PUSHED_CORPUS_H_
#define POLLEN_CONTROLLER_PUSHED_CORPUS_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "controller/controller_message.h"
#include "engine/status.h"
#include "storage/corpus_store.h"

namespace pollen::controller {

class PushedCorpus {
 public:
  // Opens (creating) the store at `path` for a campaign of `target`, and reads its keys.
  // Errors: those of CorpusStore::Open, a key that is not a pushed record name, a gap in
  // the numbering (a damaged store).
  static Result<std::unique_ptr<PushedCorpus>> Open(const std::string& path,
                                                    const std::string& target);

  struct Added {
    uint64_t seq;  // the entry holding the input
    bool added;    // false: it had been pushed before, as entry `seq`
  };
  // Adds `data` as the next entry, unless its hash was pushed before. `origin` becomes the
  // entry's origin ("push:<push id>"). Errors: storage (nothing added).
  Result<Added> Add(std::string_view data, std::string_view origin, int64_t now_unix_ms);

  // The number of the last entry: the count of entries, 0 when none.
  uint64_t last_seq() const { return hashes_.size(); }
  // Entries 1 .. durable_seq() survive a crash of the controller.
  uint64_t durable_seq() const;
  // Puts every entry on disk (a flush: up to 64 MB written; blocks for it). Afterwards
  // durable_seq() == last_seq(). Errors: storage.
  Status MakeDurable();
  uint64_t bytes() const { return bytes_; }
  // The hash of entry `seq`, 1 <= seq <= last_seq().
  const Hash& HashAt(uint64_t seq) const { return hashes_[seq - 1]; }
  bool Contains(const Hash& hash) const { return seq_of_.count(hash) != 0; }

  // The bytes of entry `seq` into *out. Errors: storage.
  Status Read(uint64_t seq, std::string* out) const;

  // The first entry whose record name is greater than `cursor` ("" for 1): names ascend
  // with the numbers, so this is a binary search. last_seq() + 1 when none is.
  uint64_t FirstSeqAfter(std::string_view cursor) const;

  // (hash, seq) of every entry whose hash in hex is greater than `after`, by hash.
  std::vector<std::pair<Hash, uint64_t>> ByHashAfter(std::string_view after) const;

 private:
  explicit PushedCorpus(std::unique_ptr<storage::CorpusStore> store) : store_(std::move(store)) {}
  Status Load();

  struct Pending {
    uint64_t mark;  // the store's write mark of the entry
    uint64_t seq;
  };

  std::unique_ptr<storage::CorpusStore> store_;
  std::vector<Hash> hashes_;  // entry seq at [seq - 1]
  // Entries not known to be durable, oldest first; durable_seq() drops those now on disk.
  mutable std::deque<Pending> pending_;
  mutable uint64_t durable_seq_ = 0;
  std::unordered_map<Hash, uint64_t, HashHasher> seq_of_;
  uint64_t bytes_ = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_PUSHED_CORPUS_H_
