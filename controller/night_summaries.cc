#include "controller/night_summaries.h"

#include <algorithm>
#include <vector>

namespace pollen::controller {
namespace {

using nlohmann::json;

const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// Copies j[key] into out[key] when it has the type `keep` accepts.
template <typename Keep>
void CopyIf(const json& j, const char* key, json& out, Keep keep) {
  const json* v = Field(j, key);
  if (v != nullptr && keep(*v)) out[key] = *v;
}

bool IsString(const json& v) { return v.is_string(); }
bool IsText(const json& v) { return v.is_string() && !v.get_ref<const std::string&>().empty(); }
bool IsInteger(const json& v) { return v.is_number_integer(); }
bool IsNumber(const json& v) { return v.is_number(); }

// The length of j[key] when it is an array.
void CountOf(const json& j, const char* key, json& out) {
  const json* v = Field(j, key);
  if (v != nullptr && v->is_array()) out[key] = v->size();
}

// {covered, count, percent} of one kind of coverage, numbers only.
json CoverageOf(const json& totals, const char* kind) {
  json out = json::object();
  const json* c = Field(totals, kind);
  if (c == nullptr) return out;
  CopyIf(*c, "covered", out, IsInteger);
  CopyIf(*c, "count", out, IsInteger);
  CopyIf(*c, "percent", out, IsNumber);
  return out;
}

}  // namespace

json SummarizeNight(const std::string& night, std::string_view report_json) {
  return SummarizeParsedNight(night, json::parse(report_json, nullptr, /*allow_exceptions=*/false));
}

json SummarizeParsedNight(const std::string& night, const json& report) {
  json line = {{"night", night}};
  if (!report.is_object()) {
    line["error"] = "its report.json is not a JSON object";
    return line;
  }
  CopyIf(report, "build_id", line, IsString);
  CopyIf(report, "verdict", line, IsString);
  CopyIf(report, "exit_code", line, IsInteger);
  CountOf(report, "problems", line);
  CountOf(report, "new_crashes", line);
  CountOf(report, "regressed_crashes", line);
  CountOf(report, "fixed_crashes", line);
  CountOf(report, "open_crashes", line);
  if (const json* fuzzing = Field(report, "fuzzing")) {
    CopyIf(*fuzzing, "executions", line, IsInteger);
    CopyIf(*fuzzing, "nodes", line, IsInteger);
    CopyIf(*fuzzing, "elapsed_s", line, IsNumber);
  }
  if (const json* totals = Field(report, "coverage")) {
    json coverage = json::object();
    for (const char* kind : {"lines", "branches", "functions", "regions"}) {
      json c = CoverageOf(*totals, kind);
      if (!c.empty()) coverage[kind] = std::move(c);
    }
    line["coverage"] = std::move(coverage);
  }
  return line;
}

json NightSummaries::LedgerOf(const std::string& night, const json& report) {
  const json* ledger = Field(report, "ledger");
  if (ledger == nullptr || !ledger->is_array()) return nullptr;
  json by_signature = json::object();
  for (const json& entry : *ledger) {
    const json* signature = Field(entry, "signature");
    if (signature == nullptr || !signature->is_string() ||
        signature->get_ref<const std::string&>().empty()) {
      continue;
    }
    const json* fixed = Field(entry, "fixed");
    json line = {
        {"state", fixed != nullptr && fixed->is_boolean() && fixed->get<bool>() ? "fixed" : "open"},
        {"night", night}};
    // An empty string is what the ledger writes for "none": left out.
    CopyIf(entry, "first_night", line, IsText);
    CopyIf(entry, "fixed_build", line, IsText);
    CopyIf(entry, "fixed_night", line, IsText);
    by_signature[signature->get<std::string>()] = std::move(line);
  }
  return by_signature;
}

Result<NightSummaries::Kept*> NightSummaries::Fresh(const std::string& campaign) {
  auto it = kept_.find(campaign);
  const uint64_t generation = store_->generation(campaign);
  if (it != kept_.end() && it->second.generation == generation) {
    it->second.used = ++uses_;
    return &it->second;
  }
  auto files = store_->FileOfEachNight(campaign, "report.json");
  if (!files.ok()) return files.status();
  Kept kept{generation, ++uses_, json::array(), json::object()};
  // Each report parsed once; the ledger is the newest night's that has one (a night's report
  // may be one the nightly could not finish).
  std::vector<json> newest_first;
  bool have_ledger = false;
  for (auto f = files->rbegin(); f != files->rend(); ++f) {
    const json report = json::parse(f->second, nullptr, /*allow_exceptions=*/false);
    newest_first.push_back(SummarizeParsedNight(f->first, report));
    if (have_ledger) continue;
    json ledger = LedgerOf(f->first, report);
    if (ledger.is_object()) {
      kept.ledger = std::move(ledger);
      have_ledger = true;
    }
  }
  for (auto n = newest_first.rbegin(); n != newest_first.rend(); ++n) {
    kept.nights.push_back(std::move(*n));
  }
  if (it == kept_.end() && kept_.size() >= kMaxCampaigns) {
    kept_.erase(std::min_element(kept_.begin(), kept_.end(), [](const auto& a, const auto& b) {
      return a.second.used < b.second.used;
    }));
  }
  Kept& slot = kept_[campaign];
  slot = std::move(kept);
  return &slot;
}

Result<json> NightSummaries::Of(const std::string& campaign) {
  Result<Kept*> kept = Fresh(campaign);
  if (!kept.ok()) return kept.status();
  return kept.value()->nights;
}

Result<const json*> NightSummaries::Ledger(const std::string& campaign) {
  Result<Kept*> kept = Fresh(campaign);
  if (!kept.ok()) return kept.status();
  return &kept.value()->ledger;
}

}  // namespace pollen::controller
