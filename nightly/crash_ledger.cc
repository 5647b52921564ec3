#include "nightly/crash_ledger.h"

#include <algorithm>
#include <utility>

namespace pollen::nightly {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LedgerEntry, signature, kind, build, first_night,
                                                fixed, fixed_build, fixed_night)

const char* CleanseOutcomeName(CleanseOutcome::Kind kind) {
  switch (kind) {
    case CleanseOutcome::Kind::kReproduces:
      return "reproduces";
    case CleanseOutcome::Kind::kFixed:
      return "fixed";
    case CleanseOutcome::Kind::kUnchecked:
      return "unchecked";
  }
  return "unchecked";
}

CleanseOutcome::Kind CleanseOutcomeKind(const std::string& name) {
  if (name == "reproduces") return CleanseOutcome::Kind::kReproduces;
  if (name == "fixed") return CleanseOutcome::Kind::kFixed;
  return CleanseOutcome::Kind::kUnchecked;
}

void CrashLedger::AddKnown(const std::vector<controller::CrashSummary>& crashes,
                           const std::string& build) {
  for (const controller::CrashSummary& c : crashes) {
    if (entries_.count(c.signature)) continue;
    LedgerEntry e;
    e.signature = c.signature;
    e.kind = c.kind;
    e.build = build;
    entries_[c.signature] = e;
  }
}

std::vector<LedgerEntry> CrashLedger::Open() const {
  std::vector<LedgerEntry> open;
  for (const auto& [signature, e] : entries_) {
    if (!e.fixed) open.push_back(e);
  }
  return open;
}

void CrashLedger::ApplyCleanse(const std::vector<CleanseOutcome>& outcomes,
                               const std::string& build, const std::string& night) {
  for (const CleanseOutcome& o : outcomes) {
    auto it = entries_.find(o.signature);
    if (it == entries_.end() || o.kind != CleanseOutcome::Kind::kFixed) continue;
    it->second.fixed = true;
    it->second.fixed_build = build;
    it->second.fixed_night = night;
  }
}

NightCrashes CrashLedger::ApplyTonight(const std::vector<controller::CrashSummary>& tonight,
                                       const std::string& build, const std::string& night) {
  NightCrashes out;
  for (const controller::CrashSummary& c : tonight) {
    auto it = entries_.find(c.signature);
    if (it == entries_.end()) {
      LedgerEntry e;
      e.signature = c.signature;
      e.kind = c.kind;
      e.build = build;
      e.first_night = night;
      entries_[c.signature] = e;
      out.fresh.push_back(c);
    } else if (it->second.fixed && it->second.fixed_build == build) {
      // The cleanse's one run passed (a flaky crash), and the nodes found it on the very
      // build that "fixed" it: it never was fixed.
      it->second.fixed = false;
      it->second.fixed_build.clear();
      it->second.fixed_night.clear();
      out.known.push_back(c);
    } else if (it->second.fixed) {
      it->second.fixed = false;
      it->second.fixed_build.clear();
      it->second.fixed_night.clear();
      it->second.build = build;  // its reproducer on the build where it came back
      out.regressed.push_back(c);
    } else {
      out.known.push_back(c);
    }
  }
  return out;
}

void CrashLedger::DropOldestFixed(size_t keep) {
  std::vector<std::pair<std::string, std::string>> fixed;  // (fixed night, signature)
  for (const auto& [signature, e] : entries_) {
    if (e.fixed) fixed.emplace_back(e.fixed_night, signature);
  }
  if (fixed.size() <= keep) return;
  std::sort(fixed.begin(), fixed.end());
  for (size_t i = 0; i < fixed.size() - keep; i++) entries_.erase(fixed[i].second);
}

nlohmann::json CrashLedger::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [signature, e] : entries_) list.push_back(e);
  return list;
}

Result<CrashLedger> CrashLedger::FromJson(const nlohmann::json& json) {
  if (!json.is_array()) return Status::Error("the crash ledger is not a list");
  CrashLedger ledger;
  for (const nlohmann::json& item : json) {
    if (!item.is_object()) return Status::Error("a crash ledger entry is not an object");
    LedgerEntry e;
    try {
      e = item.get<LedgerEntry>();
    } catch (const nlohmann::json::exception& ex) {
      return Status::Error(std::string("a crash ledger entry cannot be read: ") + ex.what());
    }
    if (e.signature.empty()) return Status::Error("a crash ledger entry has no signature");
    ledger.entries_[e.signature] = e;
  }
  return ledger;
}

}  // namespace pollen::nightly
