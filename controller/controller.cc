#include "controller/controller.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <zmq.hpp>

#include "base/clock.h"
#include "controller/campaign_registry.h"
#include "controller/campaign_samples.h"
#include "controller/campaign_stores.h"
#include "controller/client/controller_codec.h"
#include "controller/dashboard_api.h"
#include "controller/data_dir.h"
#include "controller/maintenance_worker.h"
#include "controller/node_registry.h"
#include "controller/registry_db.h"
#include "controller/request_handler.h"
#include "controller/stream_resources.h"
#include "controller/stream_server.h"
#include "controller/view_queue.h"
#include "net/listen_endpoint.h"
#include "net/socket_options.h"
#include "net/zap_handler.h"
#include "net/zmq_status.h"

namespace pollen::controller {
namespace {

constexpr int kPollMs = 100;
constexpr int kRetryPollMs = 5;     // while a stream's chunk waits for room in a peer's queue
constexpr uint64_t kTickMs = 1000;  // node expiry and saving, status snapshot
constexpr uint64_t kViewTimeoutMs = 5000;  // a dashboard question waits at most this long

class ControllerImpl : public Controller {
 public:
  explicit ControllerImpl(const ControllerOptions& options)
      : options_(options),
        codec_(options.limits),
        context_(options.io_threads),
        router_(context_, zmq::socket_type::router) {}

  Status Start();
  std::string endpoint() const override { return endpoint_; }
  void Run(const std::function<bool()>& should_stop) override;
  void Stop() override { stop_.store(true); }
  ControllerStatus status() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return snapshot_;
  }
  ops::HttpReply AskView(const ops::HttpRequest& request) override {
    return views_->Ask(request, kViewTimeoutMs);
  }

 private:
  Status OpenData();
  Status Bind();
  void ReceiveBatch();
  void HandleFrame(const std::string& routing_id, const zmq::message_t& payload, bool extra_parts);
  // Queues a merge for a mergeCorpus request; the reply goes when it ends.
  void ScheduleMerge(const std::string& routing_id, uint64_t request_id,
                     const MergeCorpusRequest& request);
  void Send(const std::string& routing_id, uint64_t request_id, const Reply& reply);
  // One frame to a peer for the stream server, never waiting.
  StreamServer::SendResult SendFrame(const std::string& routing_id, zmq::message_t& frame);
  void Tick(uint64_t now_ms);
  void ScheduleMerges();
  void DeliverMerges();
  void Snapshot();
  // Answers the dashboard's questions that wait (ViewQueue).
  void ServeViews();

  ControllerOptions options_;
  ControllerCodec codec_;
  DataDir dir_;
  std::unique_ptr<RegistryDb> db_;
  std::unique_ptr<ReportStore> reports_;
  std::unique_ptr<CampaignRegistry> campaigns_;
  std::unique_ptr<NodeRegistry> nodes_;
  std::unique_ptr<CampaignStores> stores_;
  std::unique_ptr<RequestHandler> handler_;
  std::unique_ptr<CampaignSamples> samples_;
  std::unique_ptr<DashboardApi> dashboard_;
  std::unique_ptr<ViewQueue> views_;
  // After the stores: destroyed (and joined) before them.
  std::unique_ptr<MaintenanceWorker> worker_;
  zmq::context_t context_;  // before the sockets: destroyed after them
  std::unique_ptr<net::ZapHandler> zap_;
  zmq::socket_t router_;
  std::string endpoint_;
  ControllerStatus counters_;
  uint64_t last_merge_round_ms_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  ControllerStatus snapshot_;
  // Last: their streams end (pushes save their cursors) before the stores and the socket go.
  std::unique_ptr<StreamResources> stream_resources_;
  std::unique_ptr<StreamServer> streams_;
};

Status ControllerImpl::Start() {
  const bool curve = !options_.secret_key.empty();
  if (curve && options_.authorized_dir.empty()) {
    return Status::Error("a CURVE controller needs a directory of authorised client keys");
  }
  if (!curve && !options_.allow_plaintext) {
    return Status::Error(
        "no secret key: plain text must be asked for explicitly (--insecure-plaintext)");
  }
  if (options_.data_dir.empty()) return Status::Error("the controller needs a data directory");
  if (Status s = OpenData(); !s.ok()) return s;
  return Bind();
}

Status ControllerImpl::OpenData() {
  Result<DataDir> dir = PrepareDataDir(options_.data_dir);
  if (!dir.ok()) return dir.status();
  dir_ = *dir;
  auto db = RegistryDb::Open(dir_.registry);
  if (!db.ok()) return db.status();
  db_ = std::move(db).value();
  auto campaigns = CampaignRegistry::Load(db_.get());
  if (!campaigns.ok()) return campaigns.status();
  campaigns_ = std::move(campaigns).value();
  NodeRegistryOptions node_options;
  node_options.lost_after_ms = options_.lost_after_ms;
  node_options.forget_after_ms = options_.forget_after_ms;
  auto nodes = NodeRegistry::Load(db_.get(), node_options);
  if (!nodes.ok()) return nodes.status();
  nodes_ = std::move(nodes).value();
  stores_ = std::make_unique<CampaignStores>(dir_.campaigns, db_.get());
  reports_ = std::make_unique<ReportStore>(db_.get());
  handler_ = std::make_unique<RequestHandler>(campaigns_.get(), nodes_.get(), stores_.get(),
                                              options_.limits, reports_.get());
  samples_ =
      std::make_unique<CampaignSamples>(db_.get(), static_cast<int64_t>(options_.sample_every_ms));
  if (Status s = samples_->Load(); !s.ok()) return s;
  if (samples_->skipped() > 0) {
    spdlog::warn("controller: {} unreadable campaign samples skipped", samples_->skipped());
  }
  dashboard_ = std::make_unique<DashboardApi>(handler_.get(), samples_.get(), reports_.get());
  auto views = ViewQueue::Create();
  if (!views.ok()) return views.status();
  views_ = std::move(views).value();
  worker_ = std::make_unique<MaintenanceWorker>(base::UnixMs);
  stream_resources_ = std::make_unique<StreamResources>(
      campaigns_.get(), stores_.get(), db_.get(), base::UnixMs,
      [this](CrashRequest crash) {
        return handler_->Handle(Request{std::move(crash)}, base::UnixMs(), base::MonotonicMs());
      },
      options_.limits.max_report_bytes, dir_.campaigns);
  streams_ = std::make_unique<StreamServer>(
      options_.streams, options_.limits.stream, stream_resources_.get(),
      [this](const std::string& routing_id, zmq::message_t& frame) {
        return SendFrame(routing_id, frame);
      });
  return Status::Ok();
}

Status ControllerImpl::Bind() {
  Status zap_started = Status::Ok();
  Status set = net::ZmqCall("cannot set up the controller socket", [&] {
    net::SetSharedSocketOptions(router_, options_.high_water_mark,
                                options_.limits.max_message_bytes);
    // A gone or full peer is an error (counted), not a silent drop.
    router_.set(zmq::sockopt::router_mandatory, 1);
    if (options_.secret_key.empty()) return;
    auto zap = net::ZapHandler::Start(context_, options_.authorized_dir);
    if (!zap.ok()) {
      zap_started = zap.status();
      return;
    }
    zap_ = std::move(zap).value();
    net::SetCurveServer(router_, options_.secret_key);
  });
  if (!zap_started.ok()) return zap_started;
  if (!set.ok()) return set;
  if (Status port = net::CheckTcpPort(options_.listen); !port.ok()) return port;
  if (Status s = net::Bind(router_, options_.listen, 7200); !s.ok()) return s;
  endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  Snapshot();
  return Status::Ok();
}

void ControllerImpl::Run(const std::function<bool()>& should_stop) {
  uint64_t last_tick = 0, last_status = base::MonotonicMs();
  bool stream_waiting = false;
  while (!stop_.load() && !(should_stop && should_stop())) {
    zmq::pollitem_t items[3] = {{router_.handle(), 0, ZMQ_POLLIN, 0},
                                {nullptr, views_->wake_fd(), ZMQ_POLLIN, 0},
                                {nullptr, 0, ZMQ_POLLIN, 0}};
    if (zap_) items[2].socket = zap_->socket().handle();
    Status turn = net::ZmqCall("controller", [&] {
      zmq::poll(items, zap_ ? 3 : 2,
                std::chrono::milliseconds(stream_waiting ? kRetryPollMs : kPollMs));
      if (zap_ && (items[2].revents & ZMQ_POLLIN)) zap_->HandlePending();
      if (items[0].revents & ZMQ_POLLIN) ReceiveBatch();
    });
    if (!turn.ok() && turn.code() != StatusCode::kInterrupted) spdlog::warn("{}", turn.message());
    if (items[1].revents & ZMQ_POLLIN) ServeViews();
    stream_waiting = streams_->Pump();
    DeliverMerges();
    uint64_t now = base::MonotonicMs();
    if (now - last_tick >= kTickMs) {
      Tick(now);
      last_tick = now;
    }
    Snapshot();
    if (options_.status_interval_ms > 0 && now - last_status >= options_.status_interval_ms) {
      if (options_.on_status) options_.on_status(status());
      last_status = now;
    }
  }
  views_->Close();
  if (Status s = nodes_->SaveAll(); !s.ok()) spdlog::error("controller: {}", s.message());
  Snapshot();
}

void ControllerImpl::ServeViews() {
  views_->Serve([this](const ops::HttpRequest& request) {
    try {
      return dashboard_->Answer(request, base::UnixMs(), base::MonotonicMs());
    } catch (const std::exception& e) {  // a bug: the page gets a 500, the service goes on
      spdlog::error("controller: dashboard {}: {}", request.path, e.what());
      ops::HttpReply reply;
      reply.status = 500;
      reply.content_type = "text/plain; charset=utf-8";
      reply.body = "internal error\n";
      return reply;
    }
  });
}

void ControllerImpl::ReceiveBatch() {
  for (size_t n = 0; n < options_.batch; n++) {
    zmq::message_t routing_id, payload;
    if (!router_.recv(routing_id, zmq::recv_flags::dontwait)) break;
    // A ROUTER always prefixes the routing id; the parts of one message arrive together.
    if (!routing_id.more() || !router_.recv(payload, zmq::recv_flags::dontwait)) {
      counters_.requests++;
      counters_.errors[static_cast<size_t>(ErrorCode::kMalformed)]++;
      continue;
    }
    bool extra_parts = false;
    while (payload.more()) {  // clients send one frame: more is garbage, read and dropped
      zmq::message_t rest;
      if (!router_.recv(rest, zmq::recv_flags::dontwait)) break;
      extra_parts = true;
      if (!rest.more()) break;
    }
    HandleFrame(routing_id.to_string(), payload, extra_parts);
  }
}

void ControllerImpl::HandleFrame(const std::string& routing_id, const zmq::message_t& payload,
                                 bool extra_parts) {
  counters_.requests++;
  if (extra_parts) {
    return Send(routing_id, 0,
                ErrorReply{ErrorCode::kMalformed, "a request is one frame; this had several"});
  }
  auto decoded = codec_.DecodeRequest(payload.data(), payload.size());
  if (auto* error = std::get_if<DecodeError>(&decoded)) {
    return Send(routing_id, error->request_id, ErrorReply{error->code, std::move(error->message)});
  }
  DecodedRequest& request = std::get<DecodedRequest>(decoded);
  if (auto* merge = std::get_if<MergeCorpusRequest>(&request.request)) {
    return ScheduleMerge(routing_id, request.request_id, *merge);
  }
  if (auto* stream = std::get_if<StreamRequest>(&request.request)) {
    return streams_->OnMessage(routing_id, stream->message, request.chunk_data,
                               base::MonotonicMs());
  }
  if (auto* push = std::get_if<PushCorpusRequest>(&request.request)) {
    if (auto error = streams_->OnPush(routing_id, request.request_id, *push, base::MonotonicMs())) {
      Send(routing_id, request.request_id, *error);
    }
    return;
  }
  if (auto* build = std::get_if<PushBuildRequest>(&request.request)) {
    if (auto error =
            streams_->OnPushBuild(routing_id, request.request_id, *build, base::MonotonicMs())) {
      Send(routing_id, request.request_id, *error);
    }
    return;
  }
  if (auto* crash = std::get_if<PushCrashRequest>(&request.request)) {
    if (auto error =
            streams_->OnPushCrash(routing_id, request.request_id, *crash, base::MonotonicMs())) {
      Send(routing_id, request.request_id, *error);
    }
    return;
  }
  Send(routing_id, request.request_id,
       handler_->Handle(request.request, base::UnixMs(), base::MonotonicMs()));
}

void ControllerImpl::ScheduleMerge(const std::string& routing_id, uint64_t request_id,
                                   const MergeCorpusRequest& request) {
  auto store = handler_->StoreFor(request.campaign);
  if (auto* error = std::get_if<ErrorReply>(&store)) return Send(routing_id, request_id, *error);
  CampaignStore* s = std::get<CampaignStore*>(store);
  worker_->Schedule(s->corpus.get(), s->campaign + "/" + s->build_id,
                    MaintenanceWorker::Waiter{routing_id, request_id});
}

void ControllerImpl::Send(const std::string& routing_id, uint64_t request_id, const Reply& reply) {
  std::vector<uint8_t> bytes = ControllerCodec::EncodeReply(request_id, reply);
  if (bytes.size() > options_.limits.max_message_bytes) {  // the handler keeps under it: a bug
    spdlog::error("controller: a reply of {} bytes is over the message limit", bytes.size());
    bytes = ControllerCodec::EncodeReply(
        request_id, ErrorReply{ErrorCode::kTooLarge, "the reply would not fit in a message"});
  }
  if (auto* error = std::get_if<ErrorReply>(&reply)) {
    counters_.errors[static_cast<size_t>(error->code)]++;
  }
  try {
    if (!router_.send(zmq::buffer(routing_id),
                      zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      counters_.replies_dropped++;  // its queue is full: never wait for one peer
      return;
    }
    router_.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
    counters_.replies++;
  } catch (const zmq::error_t& e) {
    counters_.replies_dropped++;  // EHOSTUNREACH: the peer went away before its reply
    if (e.num() != EHOSTUNREACH) spdlog::warn("controller: reply failed: {}", e.what());
  }
}

StreamServer::SendResult ControllerImpl::SendFrame(const std::string& routing_id,
                                                   zmq::message_t& frame) {
  try {
    if (!router_.send(zmq::buffer(routing_id),
                      zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      return StreamServer::SendResult::kFull;
    }
    router_.send(frame, zmq::send_flags::dontwait);  // the rest of a message always goes
    return StreamServer::SendResult::kSent;
  } catch (const zmq::error_t& e) {
    if (e.num() != EHOSTUNREACH) spdlog::warn("controller: stream send failed: {}", e.what());
    return StreamServer::SendResult::kGone;
  }
}

void ControllerImpl::Tick(uint64_t now_ms) {
  const int64_t now = base::UnixMs();
  std::vector<std::string> lost;
  if (Status s = nodes_->Maintain(now, &lost); !s.ok())
    spdlog::error("controller: {}", s.message());
  counters_.nodes_alive = counters_.nodes_lost = 0;
  for (const auto& [campaign, n] : nodes_->CountByCampaign(now)) {
    counters_.nodes_alive += n.alive;
    counters_.nodes_lost += n.lost;
  }
  for (const std::string& id : lost) {
    auto it = nodes_->nodes().find(id);
    spdlog::warn("node '{}' of campaign '{}' is lost: no word from it for {:g} s", id,
                 it == nodes_->nodes().end() ? "?" : it->second.campaign,
                 static_cast<double>(options_.lost_after_ms) / 1000);
  }
  streams_->Expire(now_ms);
  if (samples_->Due(now)) {
    Reply status = handler_->Handle(StatusRequest{}, now, now_ms);
    if (auto* s = std::get_if<StatusReply>(&status)) {
      if (Status kept = samples_->Record(*s, now); !kept.ok()) {
        spdlog::error("controller: keeping the campaigns' samples: {}", kept.message());
      }
    }
  }
  if (options_.merge_every_ms > 0 && now_ms - last_merge_round_ms_ >= options_.merge_every_ms) {
    if (last_merge_round_ms_ != 0) ScheduleMerges();  // not at start: nothing grew yet
    last_merge_round_ms_ = now_ms;
  }
}

void ControllerImpl::ScheduleMerges() {
  stores_->ForEachOpen([&](CampaignStore& s) {
    if (s.corpus->info().inserted_since_maintain > 0) {
      worker_->Schedule(s.corpus.get(), s.campaign + "/" + s.build_id, std::nullopt);
    }
  });
}

void ControllerImpl::DeliverMerges() {
  for (MaintenanceWorker::Done& done : worker_->TakeDone()) {
    Reply reply;
    if (done.report.ok()) {
      const MaintainReport& r = *done.report;
      counters_.merges++;
      counters_.merge_ms_total += r.duration_ms;
      counters_.merge_ms_last = r.duration_ms;
      spdlog::info(
          "merged corpus {}: {} -> {} entries ({} superseded), {} features, {} ms, {} "
          "bytes on disk",
          done.name, r.entries_before, r.entries_after, r.removed, r.features, r.duration_ms,
          r.disk_bytes_after);
      reply = MergeReply{r.entries_before, r.entries_after, r.features, r.duration_ms};
    } else {
      counters_.merge_failures++;
      spdlog::error("merging corpus {} failed: {}", done.name, done.report.status().message());
      reply = ErrorReply{ErrorCode::kStorage, done.report.status().message()};
    }
    for (const MaintenanceWorker::Waiter& w : done.waiters) Send(w.routing_id, w.request_id, reply);
  }
}

void ControllerImpl::Snapshot() {
  if (zap_) {
    counters_.handshakes_accepted = zap_->accepted();
    counters_.handshakes_refused = zap_->refused();
  }
  counters_.campaigns = campaigns_->campaigns().size();
  counters_.streams = streams_->counters();
  std::lock_guard<std::mutex> lock(mu_);
  snapshot_ = counters_;
}

}  // namespace

Result<std::unique_ptr<Controller>> StartController(const ControllerOptions& options) {
  auto controller = std::make_unique<ControllerImpl>(options);
  if (Status started = controller->Start(); !started.ok()) return started;
  return std::unique_ptr<Controller>(std::move(controller));
}

}  // namespace pollen::controller
