#include "controller/stream_resources.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "controller/build_push_sink.h"
#include "controller/client/crash_source.h"
#include "controller/client/record_names.h"
#include "controller/corpus_sources.h"
#include "controller/report_store.h"
#include "transfer/one_record_source.h"

namespace pollen::controller {
namespace {

Status Logged(const Status& s) {
  spdlog::error("controller: {}", s.message());
  return s;
}

}  // namespace

StreamResources::StreamResources(CampaignRegistry* campaigns, CampaignStores* stores,
                                 RegistryDb* db, std::function<int64_t()> now_unix_ms,
                                 CrashPushSink::ReportFn report_crash, size_t max_report_bytes,
                                 const std::string& campaigns_dir)
    : campaigns_(campaigns),
      stores_(stores),
      db_(db),
      now_unix_ms_(std::move(now_unix_ms)),
      report_crash_(std::move(report_crash)),
      max_report_bytes_(max_report_bytes),
      builds_(campaigns_dir) {}

Result<std::unique_ptr<transfer::RecordSource>> StreamResources::OpenPull(
    const std::string& resource, const std::string& resume_after) {
  Result<ParsedResource> parsed = ParseResource(resource);
  if (!parsed.ok()) return parsed.status();
  if (parsed->kind == ParsedResource::Kind::kReports) {  // kept even for campaigns without nodes
    ReportStore reports(db_);
    Result<std::unique_ptr<transfer::RecordSource>> source =
        reports.Open(parsed->campaign.name, parsed->night, resume_after);
    if (!source.ok()) return Logged(source.status());
    return source;
  }
  const CampaignRecord* campaign = campaigns_->Find(parsed->campaign.name);
  if (campaign == nullptr) {
    return Status::Error(campaigns_->UnknownCampaign(parsed->campaign.name));
  }
  if (parsed->kind == ParsedResource::Kind::kCrash) {
    return OpenCrash(*campaign, parsed->signature, resume_after);
  }
  if (parsed->kind == ParsedResource::Kind::kBuild) return OpenBuild(*campaign, resume_after);
  Result<PushedCorpus*> pushed = stores_->Pushed(*campaign, /*create=*/false);
  if (!pushed.ok()) return Logged(pushed.status());
  if (parsed->kind == ParsedResource::Kind::kPushed) {
    if (*pushed == nullptr) return std::unique_ptr<transfer::RecordSource>(new EmptySource());
    return std::unique_ptr<transfer::RecordSource>(new PushedSource(*pushed, resume_after));
  }
  auto build = campaigns_->ResolveBuild(parsed->campaign);
  if (auto* error = std::get_if<ErrorReply>(&build)) return Status::Error(error->message);
  Result<CampaignStore*> store = stores_->Get(*campaign, std::get<std::string>(build));
  if (!store.ok()) return Logged(store.status());
  return std::unique_ptr<transfer::RecordSource>(
      new CorpusSource((*store)->corpus.get(), *pushed, resume_after,
                       /*with_features=*/parsed->kind == ParsedResource::Kind::kEntries));
}

Result<std::unique_ptr<transfer::RecordSource>> StreamResources::OpenCrash(
    const CampaignRecord& campaign, const std::string& signature, const std::string& resume_after) {
  auto build = campaigns_->ResolveBuild(CampaignRef{campaign.name, ""});
  if (auto* error = std::get_if<ErrorReply>(&build)) return Status::Error(error->message);
  Result<CampaignStore*> store = stores_->Get(campaign, std::get<std::string>(build));
  if (!store.ok()) return Logged(store.status());
  auto detail = (*store)->triage->Get(signature);
  if (!detail.ok()) return Logged(detail.status());
  if (!detail->has_value()) {
    return Status::Error("campaign '" + campaign.name + "' has no crash " + signature +
                         " in its current build");
  }
  return std::unique_ptr<transfer::RecordSource>(
      new CrashSource(std::move((*detail)->input), std::move((*detail)->report), resume_after));
}

std::variant<StreamResources::Push, ErrorReply> StreamResources::OpenPush(
    const PushCorpusRequest& request) {
  const CampaignRecord* campaign = campaigns_->Find(request.campaign.name);
  if (campaign == nullptr) {
    return ErrorReply{ErrorCode::kUnknownCampaign,
                      campaigns_->UnknownCampaign(request.campaign.name)};
  }
  Result<PushedCorpus*> pushed = stores_->Pushed(*campaign, /*create=*/true);
  if (!pushed.ok()) return ErrorReply{ErrorCode::kStorage, Logged(pushed.status()).message()};
  Result<std::string> cursor = PushSink::ReadCursor(*db_, campaign->name, request.push_id);
  if (!cursor.ok()) return ErrorReply{ErrorCode::kStorage, Logged(cursor.status()).message()};
  Push push;
  push.sink =
      std::make_unique<PushSink>(*pushed, db_, campaign->name, request.push_id, now_unix_ms_);
  push.resource = PushedResource(campaign->name);
  push.cursor = std::move(cursor).value();
  return push;
}

Result<std::unique_ptr<transfer::RecordSource>> StreamResources::OpenBuild(
    const CampaignRecord& campaign, const std::string& resume_after) {
  if (campaign.assigned_build.empty()) {
    return Status::Error("campaign '" + campaign.name +
                         "' has no assigned build yet (`pollen nightly` with nodes: cluster, or "
                         "`pollen build push`, assigns one)");
  }
  if (!resume_after.empty() && campaign.target <= resume_after) {
    return std::unique_ptr<transfer::RecordSource>(new EmptySource());
  }
  Result<std::string> bytes = builds_.Read(campaign.name, campaign.assigned_build, campaign.target);
  if (!bytes.ok()) return Logged(bytes.status());
  return std::unique_ptr<transfer::RecordSource>(
      new transfer::OneRecordSource(campaign.target, std::move(bytes).value()));
}

std::variant<StreamResources::Push, ErrorReply> StreamResources::OpenBuildPush(
    const PushBuildRequest& request) {
  const CampaignRecord* campaign = campaigns_->Find(request.campaign);
  if (campaign != nullptr && campaign->target != request.target) {
    return ErrorReply{ErrorCode::kConflict, "campaign '" + request.campaign + "' is for target '" +
                                                campaign->target + "', not '" + request.target +
                                                "'"};
  }
  Push push;
  push.sink = std::make_unique<BuildPushSink>(
      request, &builds_, campaign != nullptr ? campaign->assigned_build : "",
      [this](const PushBuildRequest& r) -> Status {
        auto assigned = campaigns_->AssignBuild(r.campaign, r.target, r.build_id, now_unix_ms_());
        if (auto* error = std::get_if<ErrorReply>(&assigned)) {
          return Logged(Status::Error(error->message));
        }
        spdlog::info(
            "campaign '{}': build {} pushed and assigned (nodes following the "
            "campaign's builds move to it)",
            r.campaign, r.build_id);
        return Status::Ok();
      });
  push.resource = BuildResource(request.campaign);
  return push;
}

std::variant<StreamResources::Push, ErrorReply> StreamResources::OpenCrashPush(
    const PushCrashRequest& request) {
  Push push;
  push.sink = std::make_unique<CrashPushSink>(request, max_report_bytes_, report_crash_);
  push.resource = CrashResource(request.campaign, request.signature);
  return push;
}

}  // namespace pollen::controller
