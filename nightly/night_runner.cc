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

Result<nlohmann::json> ReadJson(const fs::path& path) {
  Result<std::string> text = node::ReadTextFile(path.string());
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Status::Error(path.string() + " is not JSON");
  return j;
}

// The newest night before `night` in `campaign_dir` that has a report.
std::string PreviousNight(const fs::path& campaign_dir, const std::string& night) {
  std::string best;
  std::error_code ec;
  for (fs::directory_iterator it(campaign_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name < night && name > best && CheckNightName(name).ok() &&
        fs::exists(it->path() / "report.json", ec)) {
      best = name;
    }
  }
  return best;
}

// Pulls `resource` into `dir` (emptied first); returns the records.
Result<uint64_t> PullInto(const controller::ControllerClientOptions& client,
                          const std::string& resource, const fs::path& dir, int timeout_ms) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create " + dir.string() + ": " + ec.message());
  transfer::DirectorySinkOptions sink_options;
  sink_options.sync = false;  // pulled again if the night is run again
  Result<std::unique_ptr<transfer::DirectorySink>> sink =
      transfer::DirectorySink::Open(dir.string(), sink_options);
  if (!sink.ok()) return sink.status();
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = timeout_ms;
  stream.idle_timeout_ms = std::max(timeout_ms, 30000);
  Result<transfer::TransferCounters> pulled =
      controller::PullStream(client, resource, "", sink->get(), nullptr, stream);
  if (!pulled.ok()) return pulled.status();
  Status flushed = (*sink)->Flush();
  if (!flushed.ok()) return flushed;
  return pulled->records;
}

class Night {
 public:
  Night(const NightOptions& options, controller::ControllerClient& client, fs::path dir)
      : o_(options), client_(client), dir_(std::move(dir)) {}

  Result<NightResult> Run();

 private:
  Status Save() { return SaveNightState((dir_ / "night.json").string(), s_); }
  Status Begin(const std::string& build_id);
  Status Carry();
  Status Cleanse();
  Result<bool> Fuzz();  // false: interrupted
  // Whether node status `n` counts for tonight: a local node of this night, or on the
  // cluster a node of tonight's build.
  bool Tonight(const controller::NodeStatus& n) const {
    return o_.campaign.cluster ? n.build_id == s_.build_id
                               : n.node_id.rfind(NodeIdPrefix(), 0) == 0;
  }
  Status Merge();
  Status Coverage();
  Status Sanitize();
  Result<NightResult> Report();
  // The merged corpus of tonight's build in DIR/corpus, pulled once per run.
  Result<fs::path> MergedCorpus();
  Result<uint64_t> Executions();
  // The campaign as the controller knows it; nullopt when it does not (no node joined it
  // yet). Errors: the controller's (unreachable: the step is run again on resume).
  Result<std::optional<controller::CampaignSummary>> Campaign();
  Result<bool> EndFuzz();  // the checks after the fuzzing, either way; the step done
  std::string NodeIdPrefix() const { return "nightly-" + s_.campaign + "-" + s_.night + "-"; }

  const NightOptions& o_;
  controller::ControllerClient& client_;
  fs::path dir_;
  NightState s_;
  bool corpus_pulled_ = false;
};

Result<std::optional<controller::CampaignSummary>> Night::Campaign() {
  Result<controller::CampaignsReply> list = client_.Call<controller::CampaignsReply>(
      controller::ListCampaignsRequest{}, o_.request_timeout_ms);
  if (!list.ok()) return list.status();
  for (controller::CampaignSummary& c : list->campaigns) {
    if (c.name == s_.campaign) return std::optional<controller::CampaignSummary>(std::move(c));
  }
  return std::optional<controller::CampaignSummary>();
}

Status Night::Begin(const std::string& build_id) {
  s_.campaign = o_.campaign.campaign;
  s_.night = o_.night;
  s_.build_id = build_id;
  s_.started_unix_ms = base::UnixMs();
  s_.previous_night = PreviousNight(dir_.parent_path(), o_.night);
  CrashLedger ledger;
  // The previous night's report: here, or in the controller (a job without a disk of its
  // own, or a state directory lost), whichever is newer.
  std::string previous_where;
  Result<nlohmann::json> report = Status::Error("no previous night");
  if (!s_.previous_night.empty()) {
    previous_where = (dir_.parent_path() / s_.previous_night / "report.json").string();
    report = ReadJson(previous_where);
  }
  Result<StoredReport> stored =
      PullPreviousReport(o_.client, o_.campaign.campaign, o_.night, o_.request_timeout_ms);
  if (!stored.ok()) return stored.status();
  if (stored->night > s_.previous_night) {
    s_.previous_night = stored->night;
    previous_where = "the controller's report of " + stored->night;
    report = nlohmann::json::parse(stored->json, nullptr, false);
  }
  // A previous report that cannot be read (damaged, or stored by someone else) costs its
  // ledger and coverage, not the night: the ledger starts again from the controller's crash
  // tables, and the report says so.
  if (!s_.previous_night.empty()) {
    Status readable = !report.ok() ? report.status()
                      : !report->is_object() || !report->contains("ledger")
                          ? Status::Error("not a night's report")
                          : Status::Ok();
    Result<CrashLedger> read =
        readable.ok() ? CrashLedger::FromJson((*report)["ledger"]) : Result<CrashLedger>(readable);
    if (read.ok()) {
      ledger = std::move(read).value();
      if (report->contains("coverage")) s_.previous_coverage = (*report)["coverage"];
    } else {
      s_.problems.push_back("the previous night's report (" + previous_where +
                            ") cannot be read: " + read.status().message() +
                            "; its crash ledger is started again from the controller");
    }
  }
  // The crashes the controller keeps for earlier builds that the ledger lacks: found by
  // nodes outside the nightly, or the state directory was lost.
  Result<std::optional<controller::CampaignSummary>> campaign = Campaign();
  if (!campaign.ok()) return campaign.status();  // unreachable: the night cannot start
  if (campaign->has_value()) {
    for (const controller::BuildInfo& b : (*campaign)->builds) {
      if (b.build_id == build_id) continue;
      Result<std::vector<controller::CrashSummary>> crashes = controller::ListCampaignCrashes(
          client_, {s_.campaign, b.build_id}, o_.request_timeout_ms);
      if (!crashes.ok()) return crashes.status();
      ledger.AddKnown(*crashes, b.build_id);
    }
  }
  s_.ledger_before = ledger.ToJson();
  return Save();
}

Status Night::Carry() {
  Result<std::optional<controller::CampaignSummary>> campaign = Campaign();
  if (!campaign.ok()) return campaign.status();
  if (campaign->has_value()) {
    bool known = false;
    const controller::BuildInfo* previous = nullptr;
    for (const controller::BuildInfo& b : (*campaign)->builds) {
      if (b.build_id == s_.build_id) {
        known = true;
      } else if (!previous || b.last_seen_unix_ms > previous->last_seen_unix_ms) {
        previous = &b;
      }
    }
    uint64_t entries_now = 0;
    if (known) {
      Result<controller::CorpusInfoReply> info = client_.Call<controller::CorpusInfoReply>(
          controller::CorpusInfoRequest{{s_.campaign, s_.build_id}}, o_.request_timeout_ms);
      if (!info.ok()) return info.status();
      entries_now = info->entries;
    }
    if (previous && entries_now == 0) {
      Result<uint64_t> pulled =
          PullInto(o_.client, controller::CorpusResource(s_.campaign, previous->build_id),
                   dir_ / "carried", o_.request_timeout_ms);
      if (!pulled.ok()) return pulled.status();
      s_.carry.from_build = previous->build_id;
      s_.carry.entries = *pulled;
      spdlog::info("carry: {} inputs of build {} to run on build {}", *pulled, previous->build_id,
                   s_.build_id);
    }
  }
  s_.carry.done = true;
  return Save();
}

Status Night::Cleanse() {
  Result<CrashLedger> ledger = CrashLedger::FromJson(s_.ledger_before);
  if (!ledger.ok()) return ledger.status();
  CleanseOptions options;
  options.campaign = s_.campaign;
  options.build_path = o_.campaign.fuzz_build;
  options.sanitizer_builds = o_.campaign.sanitizer_builds;
  options.timeout_s = o_.campaign.timeout_s;
  options.rss_limit_mb = o_.campaign.rss_limit_mb;
  options.request_timeout_ms = o_.request_timeout_ms;
  const std::vector<LedgerEntry> open = ledger->Open();
  for (const auto& [entry, o] : CleanseOnTheirBuilds(client_, open, options, &s_.problems)) {
    CleanseRecord r;
    r.signature = o.signature;
    r.kind = entry.kind;
    r.outcome = CleanseOutcomeName(o.kind);
    r.now_signature = o.now_signature;
    r.detail = o.detail;
    s_.cleanse.records.push_back(r);
  }
  s_.cleanse.done = true;
  return Save();
}

Result<bool> Night::Fuzz() {
  if (o_.campaign.cluster) {
    const NightlyCampaign& c = o_.campaign;
    ClusterFuzzOptions cluster;
    cluster.client = o_.client;
    cluster.campaign = s_.campaign;
    cluster.night = s_.night;
    cluster.build_id = s_.build_id;
    cluster.target = TargetName(c);
    cluster.fuzz_build = c.fuzz_build;
    cluster.input_dirs = {(dir_ / "carried").string()};
    cluster.input_dirs.insert(cluster.input_dirs.end(), c.seeds.begin(), c.seeds.end());
    cluster.budget_s = c.budget_s;
    cluster.request_timeout_ms = o_.request_timeout_ms;
    cluster.should_stop = o_.should_stop;
    cluster.save = [this] { return Save(); };
    Result<bool> fuzzed = FuzzOnCluster(cluster, &s_.fuzz);
    if (!fuzzed.ok() || !*fuzzed) return fuzzed;
    if (Status st = CountClusterNodes(client_, cluster, &s_.fuzz); !st.ok()) return st;
    return EndFuzz();
  }
  StopLeftoverNodes(s_.fuzz.pids, NodeIdPrefix());
  const uint64_t budget = o_.campaign.budget_s;
  if (s_.fuzz.elapsed_s < budget) {
    const NightlyCampaign& c = o_.campaign;
    FleetOptions fleet;
    fleet.pollen_bin = o_.pollen_bin;
    // The nodes name the target by the file name they are given: a link of the campaign's
    // target name to tonight's build, whatever the build's file is called.
    std::error_code ec;
    const fs::path link = dir_ / "build" / TargetName(c);
    fs::create_directories(link.parent_path(), ec);
    fs::remove(link, ec);
    fs::create_symlink(fs::absolute(c.fuzz_build, ec), link, ec);
    if (ec) return Status::Error("cannot link " + link.string() + ": " + ec.message());
    fleet.node_args = {link.string()};
    if (fs::is_directory(dir_ / "carried", ec))
      fleet.node_args.push_back((dir_ / "carried").string());
    for (const std::string& seeds : c.seeds) fleet.node_args.push_back(seeds);
    fleet.node_args.insert(fleet.node_args.end(), o_.node_flags.begin(), o_.node_flags.end());
    fleet.node_args.push_back("--campaign=" + s_.campaign);
    fleet.node_args.push_back("--keep-going");
    fleet.node_args.push_back("--workers=" + std::to_string(c.workers));
    fleet.node_args.push_back("--timeout=" + std::to_string(c.timeout_s));
    fleet.node_args.push_back("--rss-limit-mb=" + std::to_string(c.rss_limit_mb));
    if (c.max_len) fleet.node_args.push_back("--max-len=" + std::to_string(c.max_len));
    if (!c.dictionary.empty()) fleet.node_args.push_back("--dict=" + c.dictionary);
    s_.fuzz.runs++;
    fleet.node_id_prefix = NodeIdPrefix() + "r" + std::to_string(s_.fuzz.runs) + "-";
    fleet.dir = (dir_ / "nodes").string();
    fleet.nodes = c.nodes;
    fleet.seconds = budget - s_.fuzz.elapsed_s;
    const uint64_t elapsed_before = s_.fuzz.elapsed_s;
    uint64_t last_save = 0;
    fleet.tick = [&](uint64_t elapsed) {
      if (elapsed >= last_save + 5) {  // a killed night resumes with what is left
        last_save = elapsed;
        s_.fuzz.elapsed_s = std::min(budget, elapsed_before + elapsed);
        (void)Save();
      }
      return o_.should_stop && o_.should_stop();
    };
    spdlog::info("fuzz: {} node(s) of build {} for {} s", c.nodes, s_.build_id, fleet.seconds);
    Result<FleetRun> run = RunFleet(fleet, [&](const std::vector<int>& pids) {
      s_.fuzz.pids = pids;
      s_.fuzz.nodes_started += static_cast<uint32_t>(pids.size());
      (void)Save();
    });
    if (!run.ok()) {
      s_.problems.push_back("the nodes could not be started: " + run.status().message());
      s_.merge.done = s_.coverage.done = true;  // nothing to merge or measure
      s_.merge.error = s_.coverage.error = "no node started";
      s_.fuzz.done = true;
      Status saved = Save();
      if (!saved.ok()) return saved;
      return true;
    }
    s_.fuzz.pids.clear();
    s_.fuzz.elapsed_s = std::min(budget, elapsed_before + run->elapsed_s);
    for (const NodeEnd& end : run->ends) {
      if (end.ok() || run->stopped) continue;
      s_.fuzz.nodes_died++;
      s_.fuzz.node_failures.push_back("node " + std::to_string(end.index) + ": " +
                                      end.exit.Describe() + " (see " + end.log + ")");
    }
    if (run->stopped) {
      Status saved = Save();
      if (!saved.ok()) return saved;
      return false;
    }
    // The nodes' work directories are in the controller now; their logs stay.
    for (const NodeEnd& end : run->ends)
      fs::remove_all(dir_ / "nodes" / std::to_string(end.index), ec);
  }
  return EndFuzz();
}

Result<bool> Night::EndFuzz() {
  if (s_.fuzz.nodes_died * 2 > s_.fuzz.nodes_started) {
    s_.problems.push_back(std::to_string(s_.fuzz.nodes_died) + " of " +
                          std::to_string(s_.fuzz.nodes_started) + " nodes died (" +
                          s_.fuzz.node_failures.front() + ")");
  }
  // A node the controller refused fuzzes on alone and ends cleanly: only the controller can
  // say whether tonight's build reached it.
  // A controller that does not answer now is asked again on resume: the step is not done.
  Result<std::optional<controller::CampaignSummary>> campaign = Campaign();
  if (!campaign.ok()) return campaign.status();
  bool registered = false;
  if (campaign->has_value()) {
    for (const controller::BuildInfo& b : (*campaign)->builds) {
      registered |= b.build_id == s_.build_id;
    }
  }
  s_.fuzz.registered = registered;
  if (registered && o_.campaign.cluster && s_.fuzz.nodes_started == 0) {
    registered = s_.fuzz.registered = false;  // assigned by the push, fuzzed by nobody
  }
  if (!registered) {
    s_.problems.push_back(
        "no node of build " + s_.build_id + " registered with the controller: " +
        (o_.campaign.cluster ? std::string("are nodes following campaign ") + s_.campaign +
                                   " (pollen node --follow-builds --campaign=" + s_.campaign +
                                   ") running? See their logs"
                             : "see the nodes' logs in " + (dir_ / "nodes").string()));
    s_.merge.done = s_.coverage.done = true;  // nothing to merge or measure
    s_.merge.error = s_.coverage.error = "no node registered";
  }
  s_.fuzz.done = true;
  Status saved = Save();
  if (!saved.ok()) return saved;
  return true;
}

Status Night::Merge() {
  Result<controller::MergeReply> merged = client_.Call<controller::MergeReply>(
      controller::MergeCorpusRequest{{s_.campaign, s_.build_id}}, o_.merge_timeout_ms);
  if (merged.ok()) {
    s_.merge.entries_before = merged->entries_before;
    s_.merge.entries_after = merged->entries_after;
    s_.merge.features = merged->features;
    s_.merge.duration_ms = merged->duration_ms;
  } else {
    s_.merge.error = merged.status().message();
    s_.problems.push_back("merge: " + s_.merge.error);
  }
  s_.merge.done = true;
  return Save();
}

Status Night::Coverage() {
  if (o_.campaign.coverage_build.empty()) {
    s_.coverage.skipped = true;
  } else {
    Result<fs::path> corpus = MergedCorpus();
    if (!corpus.ok()) return corpus.status();
    CoverageOptions options;
    options.coverage_build = o_.campaign.coverage_build;
    options.inputs = {corpus->string()};
    options.out_dir = (dir_ / "coverage").string();
    options.timeout_s = o_.campaign.timeout_s;
    Result<CoverageSummary> summary = MakeCoverageReport(options);
    if (summary.ok()) {
      s_.coverage.summary = CoverageSummaryToJson(*summary);
      spdlog::info("coverage: {}", DescribeTotals(summary->totals));
    } else {
      s_.coverage.error = summary.status().message();
      s_.problems.push_back("coverage: " + s_.coverage.error);
    }
  }
  s_.coverage.done = true;
  return Save();
}

Result<fs::path> Night::MergedCorpus() {
  const fs::path corpus = dir_ / "corpus";
  if (corpus_pulled_) return corpus;
  Result<uint64_t> pulled =
      PullInto(o_.client, controller::CorpusResource(s_.campaign, s_.build_id), corpus,
               o_.request_timeout_ms);
  if (!pulled.ok()) return pulled.status();
  corpus_pulled_ = true;
  return corpus;
}

Status Night::Sanitize() {
  const NightlyCampaign& c = o_.campaign;
  if (!c.sanitizer_builds.empty() && s_.fuzz.registered) {
    Result<fs::path> corpus = MergedCorpus();
    if (!corpus.ok()) return corpus.status();
    SanitizeOptions options;
    options.client = o_.client;
    options.campaign = s_.campaign;
    options.target = TargetName(c);
    options.build_id = s_.build_id;
    options.node_id = NodeIdPrefix() + "sanitize";
    options.builds = c.sanitizer_builds;
    options.timeout_s = c.timeout_s;
    options.rss_limit_mb = c.rss_limit_mb;
    options.request_timeout_ms = o_.request_timeout_ms;
    Result<SanitizeStep> step =
        RunSanitizerBuilds(client_, options, corpus->string(), &s_.problems);
    if (!step.ok()) return step.status();  // the controller's: run the night again
    s_.sanitize = std::move(step).value();
  }
  s_.sanitize.done = true;
  return Save();
}

Result<uint64_t> Night::Executions() {
  Result<controller::StatusReply> status = client_.Call<controller::StatusReply>(
      controller::StatusRequest{s_.campaign}, o_.request_timeout_ms);
  if (!status.ok()) return status.status();
  uint64_t executions = 0;
  for (const controller::NodeStatus& n : status->nodes) {
    if (Tonight(n)) executions += n.stats.executions;
  }
  return executions;
}

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

}  // namespace

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
