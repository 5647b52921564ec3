// What the controller sends for a pull (docs/controller.md, "Streams"): record sources over
// a campaign's stores, read one record at a time, so that a pull of any size costs the
// controller one record and the list of names it must send, never the corpus.
//
// Both take their list of names when they are made (a snapshot, on the service thread):
// entries added later are for the next pull. Not thread-safe: one thread (the service
// thread) makes and reads a source; the stores may be merged meanwhile on the maintenance
// thread (an entry a merge deleted since the listing is skipped).
#ifndef POLLEN_CONTROLLER_CORPUS_SOURCES_H_
#define POLLEN_CONTROLLER_CORPUS_SOURCES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controller/merged_corpus.h"
#include "controller/pushed_corpus.h"
#include "transfer/stream_sender.h"

namespace pollen::controller {

// corpus/<campaign>[/<build>]: the entries of a build's merged corpus and the campaign's
// pushed inputs, each hash once, named by the hash in hex, in ascending order; with
// features (entries/<campaign>[/<build>]), each record's data is an entry record
// (controller/client/record_names.h). Memory: 20 bytes per merged entry and 28 per pushed one still
// to send.
class CorpusSource : public transfer::RecordSource {
 public:
  // The records after `resume_after`. `pushed` may be null (nothing pushed). Both stores must
  // outlive the source.
  CorpusSource(MergedCorpus* merged, const PushedCorpus* pushed, std::string_view resume_after,
               bool with_features = false);

  // Errors: the store's, naming the entry.
  Result<bool> Next(std::string* name, std::string* data) override;

  // The number of records a whole pull sends (each hash once).
  static uint64_t CountAll(const MergedCorpus& merged, const PushedCorpus* pushed);

 private:
  MergedCorpus* merged_;
  const PushedCorpus* pushed_;
  const bool with_features_;
  std::string input_;  // with features: the input, before it joins its record
  std::vector<base::Digest> merged_hashes_;
  size_t next_merged_ = 0;
  std::vector<std::pair<base::Digest, uint64_t>> pushed_hashes_;  // (hash, seq), by hash
  size_t next_pushed_ = 0;
};

// pushed/<campaign>: the pushed inputs after the cursor, in push order, up to the last one
// durable when the source was made (PushedCorpus::durable_seq(): nodes rely on what they
// pulled), named <seq>-<hash> (controller/client/record_names.h). Memory: nothing per entry.
class PushedSource : public transfer::RecordSource {
 public:
  // `pushed` must outlive the source.
  PushedSource(const PushedCorpus* pushed, std::string_view resume_after);

  Result<bool> Next(std::string* name, std::string* data) override;

 private:
  const PushedCorpus* pushed_;
  uint64_t next_seq_;
  uint64_t last_seq_;  // durable_seq() when the source was made
};

// No records: pushed/<campaign> before anything was pushed to it.
class EmptySource : public transfer::RecordSource {
 public:
  Result<bool> Next(std::string*, std::string*) override { return false; }
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CORPUS_SOURCES_H_
