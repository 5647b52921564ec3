#include "nightly/night_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "base/clock.h"
#include "controller/client/client_queries.h"
#include "controller/client/record_names.h"
#include "controller/client/safe_name.h"
#include "controller/client/stream_client.h"
#include "nightly/cleanse.h"
#include "nightly/cluster_fuzz.h"
#include "nightly/coverage_report.h"
#include "nightly/crash_ledger.h"
#include "nightly/image_builds.h"
#include "nightly/json_text.h"
#include "nightly/night.h"
#include "nightly/night_report.h"
#include "nightly/night_state.h"
#include "nightly/node_fleet.h"
#include "nightly/notifications.h"
#include "nightly/report_client.h"
#include "nightly/sanitizer_builds.h"
#include "node/artifacts.h"
#include "node/single_run.h"
#include "node/text_file.h"
#include "transfer/directory_records.h"

namespace pollen::nightly {
namespace {

namespace fs = std::filesystem;

// Fixed crashes the ledger remembers (their comebacks are recognised); open ones are all kept.
constexpr size_t kLedgerFixedKept = 1000;

}  // namespace

Result<NightResult> Night::Report() {
  Result<CrashLedger> ledger = CrashLedger::FromJson(s_.ledger_before);
  if (!ledger.ok()) return ledger.status();
  std::vector<CleanseOutcome> outcomes;
  for (const CleanseRecord& r : s_.cleanse.records) {
    CleanseOutcome o;
    o.signature = r.signature;
    o.kind = CleanseOutcomeKind(r.outcome);
    outcomes.push_back(o);
  }
  ledger->ApplyCleanse(outcomes, s_.build_id, s_.night);
  // A build no node registered has no crashes, no corpus and no executions to ask for.
  std::vector<controller::CrashSummary> crashes;
  if (s_.fuzz.registered) {
    Result<std::vector<controller::CrashSummary>> tonight =
        controller::ListCampaignCrashes(client_, {s_.campaign, s_.build_id}, o_.request_timeout_ms);
    if (!tonight.ok()) return tonight.status();
    crashes = std::move(tonight).value();
  }
  NightCrashes sorted = ledger->ApplyTonight(crashes, s_.build_id, s_.night);
  ledger->DropOldestFixed(kLedgerFixedKept);

  NightReportInput input;
  input.campaign = &o_.campaign;
  input.state = &s_;
  input.ledger = &*ledger;
  input.known = sorted.known;
  for (const CleanseOutcome& o : outcomes) {
    auto it = ledger->entries().find(o.signature);
    if (it != ledger->entries().end() && it->second.fixed) input.fixed.push_back(it->second);
  }
  const fs::path crash_dir = dir_ / "crashes";
  auto describe = [&](const controller::CrashSummary& c) {
    Result<controller::CrashDetailReply> detail = client_.Call<controller::CrashDetailReply>(
        controller::GetCrashRequest{{s_.campaign, s_.build_id}, c.signature},
        o_.request_timeout_ms);
    if (!detail.ok()) {
      CrashFinding f;
      f.crash = c;
      f.summary = "(its report could not be had: " + detail.status().message() + ")";
      return f;
    }
    CrashFinding f = DescribeCrash(c, detail->report, 12);
    std::error_code ec;
    fs::create_directories(crash_dir, ec);
    const std::string name = controller::CrashFileName(c);
    std::string bytes(detail->input.begin(), detail->input.end());
    if (node::WriteTextFile((crash_dir / name).string(), bytes).ok() &&
        node::WriteTextFile((crash_dir / (name + ".txt")).string(), detail->report).ok()) {
      f.reproducer = "crashes/" + name;
    }
    return f;
  };
  for (const controller::CrashSummary& c : sorted.fresh) input.fresh.push_back(describe(c));
  for (const controller::CrashSummary& c : sorted.regressed) input.regressed.push_back(describe(c));
  if (s_.fuzz.registered) {
    Result<uint64_t> executions = Executions();
    if (!executions.ok()) return executions.status();
    input.executions = *executions;
  }
  const std::string unsent =
      NotifyNight(o_.campaign, s_.night, s_.build_id, input, &s_.notified, [&] { return Save(); });
  if (!unsent.empty()) input.problems.push_back(unsent);

  NightReport report = BuildNightReport(input);
  Status json = node::WriteTextFile((dir_ / "report.json").string(), JsonText(report.json) + "\n");
  if (!json.ok()) return json;
  Status md = node::WriteTextFile((dir_ / "report.md").string(), report.markdown);
  if (!md.ok()) return md;
  // Into the controller, within its message limit: the per-file coverage first gives way
  // (report.json has the totals); a report still too large stays here only, and says so.
  std::map<std::string, std::string> files = {{"report.json", JsonText(report.json) + "\n"},
                                              {"report.md", report.markdown}};
  const size_t limit = o_.client.limits.max_message_bytes - (64u << 10);
  auto total = [&] {
    size_t n = 0;
    for (const auto& [name, data] : files) n += name.size() + data.size();
    return n;
  };
  if (s_.coverage.summary.is_object())
    files["coverage.json"] = JsonText(s_.coverage.summary) + "\n";
  if (total() > limit) files.erase("coverage.json");
  if (total() > limit) {
    spdlog::warn(
        "the report ({} bytes) is larger than the controller's message limit: it is "
        "kept in {} only",
        total(), dir_.string());
  } else {
    Status put = PutNightReport(client_, s_.campaign, s_.night, files, o_.request_timeout_ms);
    if (!put.ok()) return put;
  }
  std::error_code ec;
  fs::remove_all(dir_ / "carried", ec);  // in the controller's corpus now
  fs::remove_all(dir_ / "corpus", ec);   // pulled for the coverage and the sanitizers
  s_.reported = true;
  Status saved = Save();
  if (!saved.ok()) return saved;
  NightResult result;
  result.exit_code = report.exit_code;
  result.night_dir = dir_.string();
  result.markdown = report.markdown;
  return result;
}

Result<NightResult> Night::Run() {
  Result<std::optional<NightState>> loaded = LoadNightState((dir_ / "night.json").string());
  if (!loaded.ok()) return loaded.status();
  Result<std::string> build_id = node::BuildIdOf(o_.campaign.fuzz_build);
  if (!build_id.ok()) return build_id.status();
  if (loaded->has_value()) {
    s_ = std::move(**loaded);
    if (s_.build_id != *build_id) {
      return Status::Error("night " + s_.night + " of " + s_.campaign + " was started with build " +
                           s_.build_id + ", and the fuzzing build is now " + *build_id +
                           ": give it another --night, or move " + dir_.string() + " away");
    }
    if (s_.reported) {
      Result<nlohmann::json> report = ReadJson(dir_ / "report.json");
      Result<std::string> text = node::ReadTextFile((dir_ / "report.md").string());
      if (!report.ok() || !text.ok()) {
        return Status::Error("the report of " + dir_.string() + " is gone");
      }
      NightResult result;
      result.exit_code = report->is_object() && (*report)["exit_code"].is_number_integer()
                             ? (*report)["exit_code"].get<int>()
                             : kNightFailed;
      result.night_dir = dir_.string();
      result.markdown = std::move(text).value();
      return result;
    }
    spdlog::info("resuming night {} of {}", s_.night, s_.campaign);
  } else {
    Status begun = Begin(*build_id);
    if (!begun.ok()) return begun;
  }
  // A stop asked for (SIGTERM: a drain, the Job's deadline) ends the night between steps:
  // each step is saved when done, and the next run goes on from there.
  auto stopped = [&] { return o_.should_stop && o_.should_stop(); };
  NightResult interrupted;
  interrupted.interrupted = true;
  interrupted.night_dir = dir_.string();
  if (!s_.carry.done) {
    Status st = Carry();
    if (!st.ok()) return st;
  }
  if (stopped()) return interrupted;
  if (!s_.cleanse.done) {
    Status st = Cleanse();
    if (!st.ok()) return st;
  }
  if (stopped()) return interrupted;
  if (!s_.fuzz.done) {
    Result<bool> finished = Fuzz();
    if (!finished.ok()) return finished.status();
    if (!*finished) return interrupted;
  }
  if (stopped()) return interrupted;
  if (!s_.merge.done) {
    Status st = Merge();
    if (!st.ok()) return st;
  }
  if (stopped()) return interrupted;
  if (!s_.coverage.done) {
    Status st = Coverage();
    if (!st.ok()) return st;
  }
  if (stopped()) return interrupted;
  if (!s_.sanitize.done) {
    Status st = Sanitize();
    if (!st.ok()) return st;
  }
  if (stopped()) return interrupted;
  return Report();
}

std::string TodayUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
  return buf;
}

Status CheckNightName(const std::string& night) { return controller::CheckNightName(night); }

Result<NightResult> RunNight(const NightOptions& options) {
  Status night = CheckNightName(options.night);
  if (!night.ok()) return night;
  const fs::path dir = fs::path(options.state_dir) / options.campaign.campaign / options.night;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create " + dir.string() + ": " + ec.message());
  // Builds from an image: copied out each time the night runs (the same image gives the
  // same bytes, so a resumed night finds its build id again).
  NightOptions resolved = options;
  if (!options.campaign.image.empty()) {
    Status extracted = ExtractImageBuilds(&resolved.campaign, (dir / "image").string());
    if (!extracted.ok()) return extracted;
  }
  Result<std::unique_ptr<controller::ControllerClient>> client =
      controller::ConnectController(options.client);
  if (!client.ok()) return client.status();
  Night n(resolved, **client, dir);
  return n.Run();
}

}  // namespace pollen::nightly
