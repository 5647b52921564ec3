// What the controller's streams read and write (docs/controller.md, "Streams"): resolves a
// pull's resource to a record source over the campaign's stores, a push request to a sink
// into its pushed corpus with the push's resume cursor, a node's crash push to a sink
// that reports the crash when complete, and a build push to the campaign's builds
// (controller/build_store.h), assigned when complete. No sockets or flow control here
// (controller/stream_server.h runs the streams).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_STREAM_RESOURCES_H_
#define POLLEN_CONTROLLER_STREAM_RESOURCES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "controller/build_store.h"
#include "controller/campaign_registry.h"
#include "controller/campaign_stores.h"
#include "controller/client/controller_message.h"
#include "controller/crash_push_sink.h"
#include "controller/push_sink.h"
#include "controller/registry_db.h"
#include "transfer/stream_sender.h"

namespace pollen::controller {

class StreamResources {
 public:
  // Everything must outlive this object and what it opens. now_unix_ms: the wall clock.
  // report_crash: what a `crash` message would get (RequestHandler::OnCrash).
  // campaigns_dir: DATA/campaigns, where pushed builds are kept.
  StreamResources(CampaignRegistry* campaigns, CampaignStores* stores, RegistryDb* db,
                  std::function<int64_t()> now_unix_ms, CrashPushSink::ReportFn report_crash,
                  size_t max_report_bytes, const std::string& campaigns_dir);

  // The records of `resource` (controller/client/record_names.h) whose names follow
  // `resume_after`. Errors, to send to the receiver: an unknown resource, campaign or
  // build, storage (also logged).
  Result<std::unique_ptr<transfer::RecordSource>> OpenPull(const std::string& resource,
                                                           const std::string& resume_after);

  struct Push {
    std::unique_ptr<PushTarget> sink;
    std::string resource;  // "pushed/<campaign>" or "crash/<campaign>/<signature>", for the open
    std::string cursor;    // where the push resumes ("" from the start)
  };

  // The sink of a push into the campaign, and the cursor it resumes after. Errors, to reply
  // with: kUnknownCampaign (a campaign is created by its first node), kStorage.
  std::variant<Push, ErrorReply> OpenPush(const PushCorpusRequest& request);

  // The sink of a node's crash push (never resumed: the cursor is ""). The node is checked
  // when the crash is reported, at the end. Errors: none today.
  std::variant<Push, ErrorReply> OpenCrashPush(const PushCrashRequest& request);

  // The sink of a build push. Errors, to reply with: kConflict (the campaign is for another
  // target).
  std::variant<Push, ErrorReply> OpenBuildPush(const PushBuildRequest& request);

 private:
  // build/<campaign>: the assigned build, one record named by the target.
  Result<std::unique_ptr<transfer::RecordSource>> OpenBuild(const CampaignRecord& campaign,
                                                            const std::string& resume_after);
  // crash/<campaign>/<signature> of the campaign's current build.
  Result<std::unique_ptr<transfer::RecordSource>> OpenCrash(const CampaignRecord& campaign,
                                                            const std::string& signature,
                                                            const std::string& resume_after);

  CampaignRegistry* campaigns_;
  CampaignStores* stores_;
  RegistryDb* db_;
  std::function<int64_t()> now_unix_ms_;
  CrashPushSink::ReportFn report_crash_;
  size_t max_report_bytes_;
  BuildStore builds_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_STREAM_RESOURCES_H_
