#include "controller/corpus_sources.h"

#include "controller/client/record_names.h"

namespace pollen::controller {

CorpusSource::CorpusSource(MergedCorpus* merged, const PushedCorpus* pushed,
                           std::string_view resume_after, bool with_features)
    : merged_(merged),
      pushed_(pushed),
      with_features_(with_features),
      merged_hashes_(merged->HashesAfter(resume_after)) {
  if (pushed_ != nullptr) pushed_hashes_ = pushed_->ByHashAfter(resume_after);
}

uint64_t CorpusSource::CountAll(const MergedCorpus& merged, const PushedCorpus* pushed) {
  uint64_t count = merged.info().entries;
  if (pushed == nullptr) return count;
  for (uint64_t seq = 1; seq <= pushed->durable_seq(); seq++) {  // what a pull sends
    if (!merged.Contains(pushed->HashAt(seq))) count++;
  }
  return count;
}

Result<bool> CorpusSource::Next(std::string* name, std::string* data) {
  while (next_merged_ < merged_hashes_.size() || next_pushed_ < pushed_hashes_.size()) {
    const bool have_merged = next_merged_ < merged_hashes_.size();
    const bool have_pushed = next_pushed_ < pushed_hashes_.size();
    const base::Digest& hash =
        !have_pushed   ? merged_hashes_[next_merged_]
        : !have_merged ? pushed_hashes_[next_pushed_].first
                       : std::min(merged_hashes_[next_merged_], pushed_hashes_[next_pushed_].first);
    const bool in_merged = have_merged && merged_hashes_[next_merged_] == hash;
    const bool in_pushed = have_pushed && pushed_hashes_[next_pushed_].first == hash;
    const uint64_t pushed_seq = in_pushed ? pushed_hashes_[next_pushed_].second : 0;
    *name = base::DigestHex(hash);
    next_merged_ += in_merged ? 1 : 0;
    next_pushed_ += in_pushed ? 1 : 0;
    if (in_merged) {
      storage::CorpusStore& store = merged_->store();
      Status read;
      if (with_features_) {
        Result<storage::EntryMeta> meta = store.GetMeta(*name);
        read = meta.ok() ? store.ReadInput(*name, &input_) : meta.status();
        if (read.ok()) EncodeEntryRecord(meta->features, input_, data);
      } else {
        read = store.ReadInput(*name, data);
      }
      if (read.ok()) return true;
      // A merge may have deleted it since the listing: then it is simply not sent (unless
      // it was pushed too). Anything else is an error.
      if (store.HasEntry(*name)) {
        return Status::Error("cannot read merged corpus entry " + *name + ": " + read.message());
      }
    }
    if (in_pushed) {
      if (Status s = pushed_->Read(pushed_seq, with_features_ ? &input_ : data); !s.ok()) {
        return Status::Error("cannot read pushed input " + *name + ": " + s.message());
      }
      if (with_features_) EncodeEntryRecord({}, input_, data);
      return true;
    }
  }
  return false;
}

PushedSource::PushedSource(const PushedCorpus* pushed, std::string_view resume_after)
    : pushed_(pushed),
      next_seq_(pushed->FirstSeqAfter(resume_after)),
      last_seq_(pushed->durable_seq()) {}

Result<bool> PushedSource::Next(std::string* name, std::string* data) {
  if (next_seq_ > last_seq_) return false;
  const uint64_t seq = next_seq_++;
  *name = PushedRecordName(seq, pushed_->HashAt(seq));
  if (Status s = pushed_->Read(seq, data); !s.ok()) {
    return Status::Error("cannot read pushed input " + *name + ": " + s.message());
  }
  return true;
}

}  // namespace pollen::controller
