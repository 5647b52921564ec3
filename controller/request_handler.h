// What the controller answers: one Reply for each decoded Request, from the campaign and
// node registries and the campaign stores. No sockets here (controller/controller.h owns
// them), so every answer can be tested by calling Handle.
//
// Errors from the outside world become error replies: unknown nodes (kUnknownNode: the
// node registers again), unknown campaigns or builds, a target conflict, answers that
// would not fit in a message (kTooLarge), and storage failures (kStorage, also logged).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_REQUEST_HANDLER_H_
#define POLLEN_CONTROLLER_REQUEST_HANDLER_H_

#include <cstddef>
#include <cstdint>
#include <variant>

#include "controller/campaign_registry.h"
#include "controller/campaign_stores.h"
#include "controller/client/controller_message.h"
#include "controller/node_registry.h"
#include "controller/report_store.h"

namespace pollen::controller {

class RequestHandler {
 public:
  // Everything must outlive the handler. Replies are kept under limits.max_message_bytes.
  // `reports` may be null: putReport is then unimplemented.
  RequestHandler(CampaignRegistry* campaigns, NodeRegistry* nodes, CampaignStores* stores,
                 const ControllerLimits& limits, ReportStore* reports = nullptr);

  // The answer to `request`. now_unix_ms: wall clock (recorded); now_ms: monotonic
  // (minimization retries). A MergeCorpusRequest is merged here, synchronously; the
  // controller's loop runs those on its maintenance thread instead (StoreFor).
  Reply Handle(const Request& request, int64_t now_unix_ms, uint64_t now_ms);

  // The store that `ref` names, opened if needed, or the error to reply with.
  std::variant<CampaignStore*, ErrorReply> StoreFor(const CampaignRef& ref);

 private:
  Reply OnRegister(const RegisterRequest& r, int64_t now_unix_ms);
  Reply OnHeartbeat(const HeartbeatRequest& r, int64_t now_unix_ms, uint64_t now_ms);
  Reply OnNewInputs(const NewInputsRequest& r, int64_t now_unix_ms);
  Reply OnCrash(const CrashRequest& r, int64_t now_unix_ms);
  Reply OnListCampaigns(int64_t now_unix_ms);
  Reply OnStatus(const StatusRequest& r, int64_t now_unix_ms);
  Reply OnListCrashes(const ListCrashesRequest& r);
  Reply OnGetCrash(const GetCrashRequest& r);
  Reply OnSetStopped(const CampaignRef& ref, bool stopped);
  Reply OnCorpusInfo(const CorpusInfoRequest& r);
  Reply OnMerge(const MergeCorpusRequest& r, int64_t now_unix_ms);
  Reply OnPutReport(const PutReportRequest& r);
  // The store of a registered node's campaign build, or the error to reply with.
  std::variant<CampaignStore*, ErrorReply> StoreOfNode(const NodeRecord& node);

  CampaignRegistry* campaigns_;
  NodeRegistry* nodes_;
  CampaignStores* stores_;
  ReportStore* reports_;
  const ControllerLimits limits_;
  // What a reply may hold besides its fixed fields (a margin under the message limit).
  const size_t reply_budget_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_REQUEST_HANDLER_H_
