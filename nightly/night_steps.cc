// The steps of a night: begin, carry the corpus, cleanse, fuzz, merge, coverage, sanitizers.
// Their order and the report are in night_runner.cc.
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

namespace fs = std::filesystem;

Result<nlohmann::json> ReadJson(const fs::path& path) {
  Result<std::string> text = node::ReadTextFile(path.string());
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Status::Error(path.string() + " is not JSON");
  return j;
}

namespace {

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

}  // namespace

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
    s_.problems.push_back("no node of build " + s_.build_id + " registered with the controller: " +
                          (o_.campaign.cluster
                               ? std::string("are nodes following campaign ") + s_.campaign +
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

}  // namespace pollen::nightly
