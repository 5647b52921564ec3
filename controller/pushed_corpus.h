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
// Entries are written as files and ingested (storage/entry_file.h): written once, on this
// thread, without the store's log, memtable and flush, which is what makes a push keep pace
// with the stream (docs/decisions.md, "Pushed inputs are written as files and ingested").
// One file is open at a time, shared by every push to the campaign (their entries interleave
// in push order). Each 64 MB it is sealed and ingested in the background (a thread per file:
// the last writes, a sync, the ingestion), in order, while the next one fills: the service
// thread does not wait for the disk; at most kMaxIngesting files are in flight. MakeDurable()
// (a push's end) and closing wait for all. An entry is durable and readable once ingested:
// durable_seq() counts those. A crash of the
// controller loses the others, and nothing outside this class has relied on them: nodes are
// told of durable entries only, readers (Read, ByHashAfter, the pull sources) see only
// them, and a push's resume cursor never names a record past them (controller/push_sink.h),
// so the client sends the lost ones again. A failed write or ingestion drops the entries not
// yet durable here too, and their numbers are given again; LossSince() tells each push
// whether it had entries among them. The store key of entry `seq` is its record name in
// pushed/<campaign> (controller/client/record_names.h). In memory: the hashes in push order and a
// hash -> seq index, built by one scan of the store when it opens (about 60 bytes per entry).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_PUSHED_CORPUS_H_
#define POLLEN_CONTROLLER_PUSHED_CORPUS_H_

#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "storage/corpus_store.h"
#include "storage/entry_file.h"

namespace pollen::controller {

class PushedCorpus {
 public:
  // The open file is sealed once it holds this many input bytes: what a crash may lose,
  // and what RocksDB's memtable held before a flush when pushed entries went through it.
  static constexpr uint64_t kSealBytes = 64 << 20;
  // Sealed files in flight at most; sealing another waits for the oldest (the disk is
  // slower than the pushes).
  static constexpr size_t kMaxIngesting = 2;

  // Opens (creating) the store at `path` for a campaign of `target`, and reads its keys.
  // `seal_bytes`: for tests. Errors: those of CorpusStore::Open, a key that is not a pushed
  // record name, a gap in the numbering (a damaged store).
  static Result<std::unique_ptr<PushedCorpus>> Open(const std::string& path,
                                                    const std::string& target,
                                                    uint64_t seal_bytes = kSealBytes);

  struct Added {
    uint64_t seq;  // the entry holding the input
    bool added;    // false: it had been pushed before, as entry `seq`
  };
  // Adds `data` as the next entry, unless its hash was pushed before (durable or not).
  // `origin` becomes the entry's origin ("push:<push id>"). Errors: storage; every entry
  // not durable is dropped then, this one included (see LossSince). A background ingestion
  // that failed is found here too: its entries and those after are dropped (logged), and
  // this entry is added after them.
  Result<Added> Add(std::string_view data, std::string_view origin, int64_t now_unix_ms);

  // Ingests the open file (makes the entries not durable durable) and deletes it.
  ~PushedCorpus();

  // The number of the last entry: the count of entries, 0 when none.
  uint64_t last_seq() const { return hashes_.size(); }
  // Entries 1 .. durable_seq() are ingested: readable, and they survive a crash of the
  // controller. Takes in the background ingestions that completed.
  uint64_t durable_seq() const;
  // Ingests the open file and waits for every ingestion (blocks for the last writes and a
  // sync). Afterwards durable_seq() == last_seq(). Errors: storage; the entries not durable
  // are dropped.
  Status MakeDurable();
  // Waits until the ingestion of every sealed file has ended, ok or not, without looking at
  // the results (the next Add or MakeDurable does) or sealing the open file: for tests.
  void WaitForIngestions() const;
  // The bytes of the entries, durable or not.
  uint64_t bytes() const { return bytes_; }
  // The hash of entry `seq`, 1 <= seq <= last_seq().
  const base::Digest& HashAt(uint64_t seq) const { return hashes_[seq - 1]; }
  bool Contains(const base::Digest& hash) const { return seq_of_.count(hash) != 0; }

  // Each failed write or ingestion drops entries durable_seq() + 1 .., and their numbers are
  // given again. For a push that last asked when *seen failures had happened (0 at first):
  // the lowest durable_seq() at a failure since, UINT64_MAX when none; *seen is updated. A
  // push whose entries go beyond it lost some; those up to it are durable. Every push asks
  // before it relies on its entries (PushSink does).
  uint64_t LossSince(uint64_t* seen) const;

  // The bytes of durable entry `seq` into *out. Errors: storage.
  Status Read(uint64_t seq, std::string* out) const;

  // The first entry whose record name is greater than `cursor` ("" for 1): names ascend
  // with the numbers, so this is a binary search. last_seq() + 1 when none is.
  uint64_t FirstSeqAfter(std::string_view cursor) const;

  // (hash, seq) of every durable entry whose hash in hex is greater than `after`, by hash.
  std::vector<std::pair<base::Digest, uint64_t>> ByHashAfter(std::string_view after) const;

 private:
  PushedCorpus(std::unique_ptr<storage::CorpusStore> store, uint64_t seal_bytes)
      : store_(std::move(store)), seal_bytes_(seal_bytes) {}
  Status Load();

  // A sealed file on its way into the store.
  struct Ingesting {
    uint64_t last_seq;  // its last entry
    uint64_t bytes;     // bytes() with it
    std::shared_future<Status> done;
  };

  // Seals the open file (if any) and starts its ingestion, after those in flight.
  void Seal();
  // Takes completed ingestions, in order, up to the first that failed or is still running.
  void TakeIngested() const;
  // If an ingestion failed: waits for the others and drops the entries not durable.
  void SettleFailure();
  // Waits for every ingestion in flight, then drops the entries not durable (after a failed
  // write or ingestion).
  void DropNotDurable();

  std::unique_ptr<storage::CorpusStore> store_;
  const uint64_t seal_bytes_;
  std::unique_ptr<storage::EntryFile> file_;  // the open file; null when none
  std::vector<base::Digest> hashes_;          // entry seq at [seq - 1]
  // Oldest first; a file is ingested only if every one before it was.
  mutable std::deque<Ingesting> ingesting_;
  mutable uint64_t durable_seq_ = 0;
  mutable uint64_t durable_bytes_ = 0;
  std::unordered_map<base::Digest, uint64_t, base::DigestHasher> seq_of_;
  // durable_seq() at each failure, in order (failures are rare: a full disk).
  std::vector<uint64_t> failures_;
  uint64_t bytes_ = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_PUSHED_CORPUS_H_
