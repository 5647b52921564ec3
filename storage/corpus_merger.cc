#include "storage/corpus_merger.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <unordered_map>
#include <utility>

#include "base/clock.h"
#include "base/sha1.h"
#include "storage/merge_state.h"
#include "storage/set_cover.h"

namespace pollen::storage {
namespace {

constexpr uint64_t kProgressEvery = 4096;
constexpr size_t kBatchEntries = 1024;      // entries per PutEntries
constexpr size_t kBatchBytes = 4 << 20;     // input bytes per PutEntries
constexpr size_t kMarksPerBatch = 1 << 16;  // superseded marks per PutAux

// Where a candidate's features and bytes are read from.
enum class From : uint8_t {
  kDestination,  // an entry of the destination, trusted features
  kStore,        // an entry of a source store, trusted features
  kMergeState,   // an executed (or to-be-executed) input, bytes in the merge state
};

std::string RecordKey(std::string_view hash) {
  return std::string(kMergeRecordPrefix) + std::string(hash);
}

}  // namespace

const char* MergePhaseName(MergePhase phase) {
  switch (phase) {
    case MergePhase::kGather:
      return "gather";
    case MergePhase::kExecute:
      return "execute";
    case MergePhase::kCover:
      return "cover";
    case MergePhase::kWrite:
      return "write";
  }
  return "?";
}

struct CorpusMerger::Candidate {
  std::string hash;
  std::vector<uint32_t> features;  // valid when state == kOk
  uint64_t size = 0;
  const CorpusStore* store = nullptr;  // the store holding it (its meta gives the origin)
  int32_t input = -1;                  // else: the index of its input source
  From from = From::kDestination;
  MergeInputState state = MergeInputState::kOk;
  bool in_destination = false;
};

struct CorpusMerger::State {
  MergeReport report;
  std::deque<Candidate> candidates;  // a deque: `index` keeps views of the hashes
  std::unordered_map<std::string_view, uint32_t> index;
  std::vector<uint32_t> pending;  // candidates to execute, in gather order
  int64_t start_unix_ms = 0;

  bool Known(std::string_view hash) const { return index.count(hash) != 0; }
  Candidate& Add(Candidate c) {
    candidates.push_back(std::move(c));
    index.emplace(candidates.back().hash, static_cast<uint32_t>(candidates.size() - 1));
    return candidates.back();
  }
};

CorpusMerger::CorpusMerger(CorpusStore* destination, InputExecutor* executor, MergeOptions options)
    : destination_(destination), executor_(executor), options_(std::move(options)) {
  POLLEN_CHECK(destination_ != nullptr);
}

void CorpusMerger::AddStore(const CorpusStore* source) {
  POLLEN_CHECK(source != nullptr);
  stores_.push_back(source);
}

void CorpusMerger::AddInputs(std::string origin, InputSource source) {
  inputs_.emplace_back(std::move(origin), std::move(source));
}

void CorpusMerger::Progress(uint64_t done, uint64_t total, MergePhase phase) const {
  if (options_.progress) options_.progress(done, total, phase);
}

Result<MergeReport> CorpusMerger::Run() {
  const std::string& build_id = destination_->campaign().build_id;
  if (destination_->build_id_changed()) {
    return Status::Error("cannot merge into " + destination_->path() +
                         ": its features were recorded for build '" +
                         destination_->stored_build_id() + "', not '" + build_id +
                         "'; merge it into a new store instead (its inputs are re-executed)");
  }
  Result<std::optional<std::string>> old_build =
      destination_->GetAux(AuxTable::kMergeState, kMergeBuildIdKey);
  if (!old_build.ok()) return old_build.status();
  if (old_build->has_value() && **old_build != build_id) {  // results of another build
    if (Status s = destination_->ClearAux(AuxTable::kMergeState); !s.ok()) return s;
  }
  Result<std::optional<std::string>> start =
      destination_->GetAux(AuxTable::kMergeState, kMergeStartKey);
  if (!start.ok()) return start.status();
  State st;
  st.start_unix_ms = start->has_value() ? std::atoll((*start)->c_str()) : base::UnixMs();
  if (options_.now_unix_ms != 0) st.start_unix_ms = options_.now_unix_ms;
  const std::pair<std::string, std::string> header[] = {
      {kMergeBuildIdKey, build_id}, {kMergeStartKey, std::to_string(st.start_unix_ms)}};
  if (Status s = destination_->PutAux(AuxTable::kMergeState, header); !s.ok()) return s;

  if (Status s = Gather(st); !s.ok()) return s;
  if (Status s = Execute(st); !s.ok()) return s;

  Progress(0, 1, MergePhase::kCover);
  std::vector<CoverCandidate> cover;
  std::vector<uint32_t> cover_index;
  for (uint32_t i = 0; i < st.candidates.size(); ++i) {
    const Candidate& c = st.candidates[i];
    if (c.state != MergeInputState::kOk || c.features.empty()) continue;
    cover.push_back({c.size, &c.features, c.hash});
    cover_index.push_back(i);
  }
  std::vector<size_t> chosen = GreedySetCover(cover);
  std::vector<uint32_t> all_features;
  for (size_t& i : chosen) {
    i = cover_index[i];
    const std::vector<uint32_t>& f = st.candidates[i].features;
    all_features.insert(all_features.end(), f.begin(), f.end());
  }
  std::sort(all_features.begin(), all_features.end());
  st.report.features = static_cast<uint64_t>(std::unique(all_features.begin(), all_features.end()) -
                                             all_features.begin());
  Progress(1, 1, MergePhase::kCover);

  if (Status s = Write(st, chosen); !s.ok()) return s;
  if (Status s = destination_->ClearAux(AuxTable::kMergeState); !s.ok()) return s;
  std::sort(st.report.failures.begin(), st.report.failures.end(),
            [](const MergeFailure& a, const MergeFailure& b) { return a.hash < b.hash; });
  for (const MergeFailure& f : st.report.failures) ++st.report.failures_by_kind[f.kind];
  st.report.failed = st.report.failures.size();
  return std::move(st.report);
}

Status CorpusMerger::Gather(State& st) {
  Progress(0, 0, MergePhase::kGather);
  // The destination first: what it has is never re-executed nor re-added.
  std::vector<std::string> featureless;
  Status s = destination_->ForEachEntry([&](std::string_view hash, const EntryMeta& meta) {
    if (meta.features.empty()) {
      featureless.emplace_back(hash);
      return true;
    }
    Candidate c{std::string(hash), meta.features, meta.size, destination_};
    c.in_destination = true;
    st.Add(std::move(c));
    return true;
  });
  if (!s.ok()) return s;
  for (std::string& hash : featureless) {
    Result<std::vector<uint8_t>> data = destination_->GetInput(hash);
    if (!data.ok()) return data.status();
    if (Status a = AddPending(st, hash, *data, -1); !a.ok()) return a;
    st.candidates.back().store = destination_;
    st.candidates.back().in_destination = true;
  }
  if (Status g = GatherStores(st); !g.ok()) return g;

  for (size_t i = 0; i < inputs_.size(); ++i) {
    Status read = inputs_[i].second([&](std::string_view, std::span<const uint8_t> data) {
      if (++st.report.inputs_seen % kProgressEvery == 0) {
        Progress(st.report.inputs_seen, 0, MergePhase::kGather);
      }
      std::string hash = base::Sha1Hex(data.data(), data.size());
      if (st.Known(hash)) {
        ++st.report.duplicates;
        return Status::Ok();
      }
      return AddPending(st, std::move(hash), data, static_cast<int>(i));
    });
    if (!read.ok()) {
      return Status::Error("merge into " + destination_->path() + ": reading inputs from '" +
                           inputs_[i].first + "': " + read.message());
    }
  }
  Progress(st.report.inputs_seen, st.report.inputs_seen, MergePhase::kGather);
  return Status::Ok();
}

Status CorpusMerger::GatherStores(State& st) {
  // Trusted entries of every store before any untrusted one: an input that some store
  // has features for is never executed.
  std::vector<std::pair<std::string, const CorpusStore*>> untrusted;
  for (const CorpusStore* store : stores_) {
    if (store->campaign().target != destination_->campaign().target) {
      return Status::Error("cannot merge store " + store->path() + " (target '" +
                           store->campaign().target + "') into " + destination_->path() +
                           " (target '" + destination_->campaign().target + "')");
    }
    const bool trusted = store->stored_build_id() == destination_->campaign().build_id;
    Status s = store->ForEachEntry([&](std::string_view hash, const EntryMeta& meta) {
      if (++st.report.inputs_seen % kProgressEvery == 0) {
        Progress(st.report.inputs_seen, 0, MergePhase::kGather);
      }
      if (st.Known(hash)) {
        ++st.report.duplicates;
      } else if (trusted && !meta.features.empty()) {
        st.Add({std::string(hash), meta.features, meta.size, store, -1, From::kStore});
      } else {
        untrusted.emplace_back(hash, store);
      }
      return true;
    });
    if (!s.ok()) return s;
  }
  for (auto& [hash, store] : untrusted) {
    if (st.Known(hash)) {
      ++st.report.duplicates;
      continue;
    }
    Result<std::vector<uint8_t>> data = store->GetInput(hash);
    if (!data.ok()) return data.status();
    if (Status s = AddPending(st, std::move(hash), *data, -1); !s.ok()) return s;
    st.candidates.back().store = store;
  }
  return Status::Ok();
}

Status CorpusMerger::AddPending(State& st, std::string hash, std::span<const uint8_t> data,
                                int input) {
  const std::string key = RecordKey(hash);
  Result<std::optional<std::string>> value = destination_->GetAux(AuxTable::kMergeState, key);
  if (!value.ok()) return value.status();
  Candidate& c = st.Add({std::move(hash),
                         {},
                         data.size(),
                         nullptr,
                         input,
                         From::kMergeState,
                         MergeInputState::kPending});
  if (!value->has_value()) {
    const std::pair<std::string, std::string> record[] = {
        {key, EncodeMergeRecord(MergeRecord{}, data)}};
    if (Status s = destination_->PutAux(AuxTable::kMergeState, record); !s.ok()) return s;
    st.pending.push_back(static_cast<uint32_t>(st.candidates.size() - 1));
    return Status::Ok();
  }
  Result<MergeRecord> record = DecodeMergeRecord(**value);
  if (!record.ok()) {
    return Status::Error("merge state of " + destination_->path() + ", input " + c.hash + ": " +
                         record.status().message());
  }
  c.state = record->state;
  if (c.state == MergeInputState::kPending) {
    st.pending.push_back(static_cast<uint32_t>(st.candidates.size() - 1));
    return Status::Ok();
  }
  ++st.report.results_reused;
  c.features = std::move(record->features);
  if (c.state == MergeInputState::kFailed) {
    st.report.failures.push_back({c.hash, std::move(record->failure_kind)});
  }
  return Status::Ok();
}

Status CorpusMerger::Execute(State& st) {
  const uint64_t total = st.pending.size();
  if (total == 0) return Status::Ok();
  if (executor_ == nullptr) {
    return Status::Error("merge into " + destination_->path() + ": " + std::to_string(total) +
                         " inputs have no trusted features and no executor was given");
  }
  Progress(0, total, MergePhase::kExecute);
  for (uint64_t done = 0; done < total; ++done) {
    Candidate& c = st.candidates[st.pending[done]];
    const std::string key = RecordKey(c.hash);
    Result<std::optional<std::string>> value = destination_->GetAux(AuxTable::kMergeState, key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) {
      return Status::Error("merge state of " + destination_->path() + " lost input " + c.hash);
    }
    Result<MergeRecord> pending = DecodeMergeRecord(**value);
    if (!pending.ok()) return pending.status();
    const std::string_view bytes = pending->input;
    Result<ExecutionResult> result =
        executor_->Execute(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (!result.ok()) {
      return Status::Error(
          "merge into " + destination_->path() + " stopped after " + std::to_string(done) + " of " +
          std::to_string(total) +
          " executions (run the same merge again to resume): " + result.status().message());
    }
    ++st.report.executed;
    MergeRecord out;
    out.exec_time_us = result->exec_time_us;
    if (result->failed) {
      out.state = MergeInputState::kFailed;
      out.failure_kind = result->failure_kind.empty() ? "unknown" : result->failure_kind;
      st.report.failures.push_back({c.hash, out.failure_kind});
      // Recorded in the destination's crash table like a failure found while fuzzing
      // (deduplicated by signature); without one, the input itself is the signature.
      CrashRecord crash;
      crash.kind = out.failure_kind;
      crash.input.assign(bytes.begin(), bytes.end());
      crash.report = result->failure_report;
      crash.count = 1;
      crash.first_seen_unix_ms = crash.last_seen_unix_ms = st.start_unix_ms;
      const std::string signature = result->failure_signature.empty()
                                        ? "input-" + c.hash.substr(0, 16)
                                        : result->failure_signature;
      if (Status s = destination_->PutCrash(signature, crash); !s.ok()) return s;
    } else {
      out.state = MergeInputState::kOk;
      out.features = std::move(result->features);
      std::sort(out.features.begin(), out.features.end());
      out.features.erase(std::unique(out.features.begin(), out.features.end()), out.features.end());
    }
    const std::pair<std::string, std::string> record[] = {
        {key,
         EncodeMergeRecord(out, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()})}};
    if (Status s = destination_->PutAux(AuxTable::kMergeState, record); !s.ok()) return s;
    c.state = out.state;
    c.features = std::move(out.features);
    Progress(done + 1, total, MergePhase::kExecute);
  }
  return Status::Ok();
}

Status CorpusMerger::Write(State& st, const std::vector<size_t>& chosen) {
  std::vector<bool> selected(st.candidates.size(), false);
  std::vector<const Candidate*> to_add;
  for (size_t i : chosen) {
    selected[i] = true;
    const Candidate& c = st.candidates[i];
    st.report.bytes_selected += c.size;
    if (c.from != From::kDestination) to_add.push_back(&c);
  }
  st.report.entries_selected = chosen.size();
  std::sort(to_add.begin(), to_add.end(),
            [](const Candidate* a, const Candidate* b) { return a->hash < b->hash; });

  // Entries of one batch: their bytes and metadata must live until PutEntries.
  std::vector<std::vector<uint8_t>> data;
  std::vector<EntryMeta> metas;
  size_t batch_bytes = 0;
  auto flush = [&]() -> Status {
    std::vector<NewEntry> entries;
    for (size_t i = 0; i < metas.size(); ++i) {
      entries.push_back({to_add[st.report.entries_added + i]->hash, data[i], &metas[i]});
    }
    if (Status s = destination_->PutEntries(entries); !s.ok()) return s;
    st.report.entries_added += metas.size();
    data.clear();
    metas.clear();
    batch_bytes = 0;
    Progress(st.report.entries_added, to_add.size(), MergePhase::kWrite);
    return Status::Ok();
  };
  Progress(0, to_add.size(), MergePhase::kWrite);
  for (const Candidate* c : to_add) {
    EntryMeta meta;
    if (c->store != nullptr) {
      Result<EntryMeta> m = c->store->GetMeta(c->hash);
      if (!m.ok()) return m.status();
      meta = std::move(m).value();
    } else {
      meta.origin = inputs_[c->input].first;
      meta.first_seen_unix_ms = st.start_unix_ms;
    }
    if (c->from == From::kStore) {
      Result<std::vector<uint8_t>> input = c->store->GetInput(c->hash);
      if (!input.ok()) return input.status();
      data.push_back(std::move(input).value());
    } else {
      Result<std::optional<std::string>> value =
          destination_->GetAux(AuxTable::kMergeState, RecordKey(c->hash));
      if (!value.ok()) return value.status();
      if (!value->has_value()) {
        return Status::Error("merge state of " + destination_->path() + " lost input " + c->hash);
      }
      Result<MergeRecord> record = DecodeMergeRecord(**value);
      if (!record.ok()) return record.status();
      data.emplace_back(record->input.begin(), record->input.end());
      meta.exec_time_us = record->exec_time_us;
    }
    meta.size = data.back().size();
    meta.features = c->features;
    metas.push_back(std::move(meta));
    batch_bytes += data.back().size();
    if (metas.size() >= kBatchEntries || batch_bytes >= kBatchBytes) {
      if (Status s = flush(); !s.ok()) return s;
    }
  }
  if (!metas.empty()) {
    if (Status s = flush(); !s.ok()) return s;
  }

  // The marks are replaced as a whole: an entry selected again is no longer superseded.
  if (Status s = destination_->ClearAux(AuxTable::kSuperseded); !s.ok()) return s;
  std::vector<std::pair<std::string, std::string>> marks;
  for (size_t i = 0; i < st.candidates.size(); ++i) {
    if (!st.candidates[i].in_destination || selected[i]) continue;
    marks.emplace_back(st.candidates[i].hash, "");
    ++st.report.entries_superseded;
    if (marks.size() >= kMarksPerBatch) {
      if (Status s = destination_->PutAux(AuxTable::kSuperseded, marks); !s.ok()) return s;
      marks.clear();
    }
  }
  return destination_->PutAux(AuxTable::kSuperseded, marks);
}

Result<CompactReport> CompactStore(CorpusStore& store) {
  CompactReport report;
  if (Status s = store.Flush(); !s.ok()) return s;
  Result<CorpusStore::Stats> before = store.GetStats();
  if (!before.ok()) return before.status();
  report.before = *before;
  std::vector<std::string> hashes;
  Status s = store.ForEachAux(AuxTable::kSuperseded, [&](std::string_view key, std::string_view) {
    hashes.emplace_back(key);
    return true;
  });
  if (!s.ok()) return s;
  for (size_t i = 0; i < hashes.size(); i += kBatchEntries) {
    const size_t n = std::min(kBatchEntries, hashes.size() - i);
    if (Status d = store.DeleteEntries({hashes.data() + i, n}); !d.ok()) return d;
  }
  if (Status c = store.ClearAux(AuxTable::kSuperseded); !c.ok()) return c;
  if (Status c = store.Compact(); !c.ok()) return c;
  Result<CorpusStore::Stats> after = store.GetStats();
  if (!after.ok()) return after.status();
  report.after = *after;
  report.entries_removed = report.before.entries - report.after.entries;
  return report;
}

}  // namespace pollen::storage
