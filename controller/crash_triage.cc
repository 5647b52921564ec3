#include "controller/crash_triage.h"

#include <algorithm>

namespace pollen::controller {
namespace {

// What one summary costs in a reply besides its two texts (fields, pointers, padding).
constexpr size_t kSummaryOverheadBytes = 96;

}  // namespace

Result<std::unique_ptr<CrashTriage>> CrashTriage::Load(storage::CorpusStore* store, RegistryDb* db,
                                                       std::string key_prefix, uint64_t retry_ms) {
  std::unique_ptr<CrashTriage> triage(new CrashTriage(store, db, std::move(key_prefix), retry_ms));
  const std::string& prefix = triage->key_prefix_;
  Status error;
  Status s = db->ForEach(prefix, [&](std::string_view key, std::string_view value) {
    Result<CrashState> state = DecodeCrashState(value);
    if (!state.ok()) {
      error = Status::Error("registry " + db->path() + ": crash state of '" +
                            std::string(key.substr(prefix.size(), 200)) +
                            "': " + state.status().message());
      return false;
    }
    triage->states_[std::string(key.substr(prefix.size()))].state = std::move(state).value();
    return true;
  });
  if (!s.ok()) return s;
  if (!error.ok()) return error;
  s = store->ForEachCrash([&](std::string_view signature, const storage::CrashRecord&) {
    triage->states_.try_emplace(std::string(signature));
    return true;
  });
  if (!s.ok()) return s;
  // A state whose crash is not in the store (the crash write was lost) is forgotten.
  for (auto it = triage->states_.begin(); it != triage->states_.end();) {
    Result<std::optional<storage::CrashRecord>> r = store->GetCrash(it->first);
    if (!r.ok()) return r.status();
    if (!r->has_value()) {
      it = triage->states_.erase(it);
      continue;
    }
    if (!it->second.state.minimized) triage->unminimized_.insert(it->first);
    ++it;
  }
  return triage;
}

Result<CrashReply> CrashTriage::Report(const CrashRequest& request, int64_t now_unix_ms) {
  // A minimized report from a node that reported the crash already answers a minimize
  // request: the same occurrence, a smaller reproducer. It counts nothing and moves neither
  // first nor last seen (PutCrash merges them with min and max); it only replaces the
  // reproducer if smaller.
  bool answer = false;
  if (auto known = states_.find(request.signature); known != states_.end() && request.minimized) {
    const std::vector<std::string>& r = known->second.state.reporters;
    answer = std::find(r.begin(), r.end(), request.node_id) != r.end();
  }
  storage::CrashRecord record;
  record.kind = request.kind;
  record.input = request.input;
  record.report = request.report;
  record.count = answer ? 0 : 1;
  record.first_seen_unix_ms = now_unix_ms;
  record.last_seen_unix_ms = answer ? 0 : now_unix_ms;
  if (Status s = store_->PutCrash(request.signature, record); !s.ok()) return s;
  Result<std::optional<storage::CrashRecord>> stored = store_->GetCrash(request.signature);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) {
    return Status::Error("crash '" + request.signature.substr(0, 200) + "' vanished from " +
                         store_->path());
  }

  auto [it, is_new] = states_.try_emplace(request.signature);
  CrashState& state = it->second.state;
  bool changed = is_new;
  std::vector<std::string>& reporters = state.reporters;
  if (std::find(reporters.begin(), reporters.end(), request.node_id) == reporters.end() &&
      reporters.size() < kMaxReporters) {
    reporters.push_back(request.node_id);
    changed = true;
  }
  // PutCrash kept the smaller input: the minimized one, or one smaller still.
  if (request.minimized && !state.minimized) {
    state.minimized = true;
    changed = true;
  }
  if (state.minimized) {
    unminimized_.erase(request.signature);
  } else {
    unminimized_.insert(request.signature);
  }
  if (changed) {
    if (Status s = db_->Put(key_prefix_ + request.signature, EncodeCrashState(state)); !s.ok()) {
      return s;
    }
  }
  return CrashReply{(*stored)->count, is_new, state.minimized};
}

CrashSummary CrashTriage::Summarize(std::string_view signature,
                                    const storage::CrashRecord& r) const {
  CrashSummary s;
  s.signature = std::string(signature);
  s.kind = r.kind;
  s.count = r.count;
  s.input_size = r.input.size();
  s.first_seen_unix_ms = r.first_seen_unix_ms;
  s.last_seen_unix_ms = r.last_seen_unix_ms;
  if (auto it = states_.find(signature); it != states_.end()) {
    s.minimized = it->second.state.minimized;
    s.nodes = static_cast<uint32_t>(it->second.state.reporters.size());
  }
  return s;
}

Result<CrashListReply> CrashTriage::List(std::string_view after, size_t max_bytes) const {
  CrashListReply reply;
  size_t bytes = 0;
  Status s = store_->ForEachCrash([&](std::string_view signature, const storage::CrashRecord& r) {
    if (!after.empty() && signature <= after) return true;
    size_t cost = signature.size() + r.kind.size() + kSummaryOverheadBytes;
    if (!reply.crashes.empty() && bytes + cost > max_bytes) {
      reply.truncated = true;
      return false;
    }
    bytes += cost;
    reply.crashes.push_back(Summarize(signature, r));
    return true;
  });
  if (!s.ok()) return s;
  return reply;
}

Result<std::optional<CrashDetailReply>> CrashTriage::Get(std::string_view signature) const {
  Result<std::optional<storage::CrashRecord>> r = store_->GetCrash(signature);
  if (!r.ok()) return r.status();
  if (!r->has_value()) return std::optional<CrashDetailReply>();
  storage::CrashRecord& record = **r;
  CrashDetailReply detail{Summarize(signature, record), std::move(record.input),
                          std::move(record.report)};
  return std::optional<CrashDetailReply>(std::move(detail));
}

std::vector<std::string> CrashTriage::MinimizeWanted(std::string_view node_id, uint64_t now_ms,
                                                     size_t max) {
  std::vector<std::string> wanted;
  for (const std::string& signature : unminimized_) {
    if (wanted.size() >= max) break;
    Known& known = states_.find(signature)->second;
    if (known.asked_ms != 0 && now_ms - known.asked_ms < retry_ms_) continue;
    const auto& reporters = known.state.reporters;
    if (std::find(reporters.begin(), reporters.end(), node_id) == reporters.end()) continue;
    known.asked_ms = std::max<uint64_t>(now_ms, 1);
    wanted.push_back(signature);
  }
  return wanted;
}

}  // namespace pollen::controller
