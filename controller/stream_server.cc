#include "controller/stream_server.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "base/clock.h"
#include "base/hex.h"
#include "controller/client/controller_codec.h"
#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"

namespace pollen::controller {
namespace {

// Chunk buffers kept for reuse across every stream: 8 MiB of 256 KiB chunks.
constexpr size_t kPooledFrames = 32;

std::string PeerName(const std::string& routing_id) {
  return base::ToHex(reinterpret_cast<const uint8_t*>(routing_id.data()), routing_id.size());
}

}  // namespace

struct StreamServer::Session {
  enum class Kind { kPull, kPush };
  Kind kind = Kind::kPull;
  std::string routing_id;
  uint64_t id = 0;
  std::string resource;
  uint64_t started_ms = 0;
  uint64_t last_heard_ms = 0;
  // A pull: the controller sends.
  std::unique_ptr<transfer::RecordSource> source;
  std::unique_ptr<transfer::StreamSender> sender;
  uint32_t window = 0;     // the receiver's, from its open
  uint64_t granted = 0;    // credit received, the open's included
  zmq::message_t pending;  // an encoded chunk waiting for room in the peer's queue
  bool has_pending = false;
  size_t pending_bytes = 0;
  // A push: the controller receives.
  std::unique_ptr<PushTarget> sink;
  std::unique_ptr<transfer::StreamReceiver> receiver;
  uint32_t credit_owed = 0;

  Key key() const { return {routing_id, id}; }
  const char* what() const { return kind == Kind::kPull ? "pull of" : "push to"; }
};

StreamServer::StreamServer(const StreamServerOptions& options, const transfer::StreamLimits& limits,
                           StreamResources* resources, SendFn send)
    : options_(options),
      limits_(limits),
      resources_(resources),
      send_(std::move(send)),
      pool_(transfer::FramePool::Make(kPooledFrames)) {}

StreamServer::~StreamServer() {
  for (auto& [key, s] : sessions_) {
    if (s->kind == Session::Kind::kPush) {
      if (Status st = s->sink->Finish(false); !st.ok())
        spdlog::error("controller: {}", st.message());
    }
  }
}

StreamServer::SendResult StreamServer::Send(const std::string& routing_id, uint64_t request_id,
                                            const transfer::StreamMessage& message) {
  ControllerCodec::EncodeStream(request_id, message, &frame_);
  zmq::message_t frame(frame_.data(), frame_.size());
  return send_(routing_id, frame);
}

void StreamServer::OnMessage(const std::string& routing_id, const transfer::StreamMessage& message,
                             std::string_view chunk_data, uint64_t now_ms) {
  if (const auto* open = std::get_if<transfer::StreamOpen>(&message)) {
    return OnOpen(routing_id, *open, now_ms);
  }
  const uint64_t id = transfer::StreamIdOf(message);
  auto it = sessions_.find({routing_id, id});
  if (it == sessions_.end()) {
    if (!std::holds_alternative<transfer::StreamError>(message)) {
      Send(routing_id, 0,
           transfer::StreamError{id, "no stream " + std::to_string(id) +
                                         " is open from this peer (it ended, or was abandoned "
                                         "after a silence)"});
    }
    return;
  }
  Session& s = *it->second;
  s.last_heard_ms = now_ms;
  const bool pull = s.kind == Session::Kind::kPull;
  if (const auto* error = std::get_if<transfer::StreamError>(&message)) {
    return Fail(s.key(), "the peer stopped the stream: " + error->text, /*peer_error=*/true);
  }
  if (const auto* chunk = std::get_if<transfer::StreamChunk>(&message); chunk != nullptr && !pull) {
    return OnChunk(
        s, transfer::StreamChunkView{chunk->stream_id, chunk->seq, chunk_data, chunk->last});
  }
  if (const auto* credit = std::get_if<transfer::StreamCredit>(&message);
      credit != nullptr && pull) {
    return OnCredit(s, credit->chunks);
  }
  if (const auto* end = std::get_if<transfer::StreamEnd>(&message); end != nullptr && pull) {
    return OnEnd(s, *end);
  }
  static constexpr const char* kNames[] = {"open", "chunk", "credit", "end", "error"};
  Fail(s.key(),
       std::string("a stream ") + kNames[message.index()] + " came on a stream where the " +
           (pull ? "controller sends" : "controller receives"),
       false);
}

void StreamServer::OnOpen(const std::string& routing_id, const transfer::StreamOpen& open,
                          uint64_t now_ms) {
  const auto refuse = [&](const std::string& text) {
    counters_.refused++;
    Send(routing_id, 0, transfer::StreamError{open.stream_id, text});
  };
  const Key key{routing_id, open.stream_id};
  if (sessions_.count(key) != 0) {
    return refuse("stream " + std::to_string(open.stream_id) + " is already open");
  }
  if (sessions_.size() >= options_.max_streams) {
    return refuse("the controller is serving its limit of " + std::to_string(options_.max_streams) +
                  " streams (--max-streams): try again later");
  }
  if (open.credit > options_.max_window) {
    return refuse("a window of " + std::to_string(open.credit) +
                  " chunks is more than this controller's limit of " +
                  std::to_string(options_.max_window));
  }
  Result<std::unique_ptr<transfer::RecordSource>> source =
      resources_->OpenPull(open.resource, open.resume_after);
  if (!source.ok()) return refuse(source.status().message());
  auto s = std::make_unique<Session>();
  s->kind = Session::Kind::kPull;
  s->routing_id = routing_id;
  s->id = open.stream_id;
  s->resource = open.resource;
  s->started_ms = s->last_heard_ms = now_ms;
  s->source = std::move(source).value();
  s->sender = std::make_unique<transfer::StreamSender>(s->source.get(), options_.chunk_bytes,
                                                       limits_, open.stream_id);
  s->sender->AddCredit(open.credit);
  s->window = s->granted = open.credit;
  spdlog::debug("stream: pull of {} after '{}' by peer {} opened", open.resource, open.resume_after,
                PeerName(routing_id));
  sessions_.emplace(key, std::move(s));
  counters_.opened++;
  counters_.active = sessions_.size();
}

std::optional<ErrorReply> StreamServer::OnPush(const std::string& routing_id, uint64_t request_id,
                                               const PushCorpusRequest& request, uint64_t now_ms) {
  return StartPush(routing_id, request_id, request.stream_id, "push " + request.push_id, now_ms,
                   [&] { return resources_->OpenPush(request); });
}

std::optional<ErrorReply> StreamServer::OnPushCrash(const std::string& routing_id,
                                                    uint64_t request_id,
                                                    const PushCrashRequest& request,
                                                    uint64_t now_ms) {
  return StartPush(routing_id, request_id, request.stream_id, "crash of node " + request.node_id,
                   now_ms, [&] { return resources_->OpenCrashPush(request); });
}

std::optional<ErrorReply> StreamServer::OnPushBuild(const std::string& routing_id,
                                                    uint64_t request_id,
                                                    const PushBuildRequest& request,
                                                    uint64_t now_ms) {
  return StartPush(routing_id, request_id, request.stream_id,
                   "build " + request.build_id + " of campaign " + request.campaign, now_ms,
                   [&] { return resources_->OpenBuildPush(request); });
}

std::optional<ErrorReply> StreamServer::StartPush(
    const std::string& routing_id, uint64_t request_id, uint64_t stream_id, const std::string& what,
    uint64_t now_ms,
    const std::function<std::variant<StreamResources::Push, ErrorReply>()>& open_push) {
  const Key key{routing_id, stream_id};
  if (sessions_.count(key) != 0) {
    counters_.refused++;
    return ErrorReply{ErrorCode::kMalformed,
                      "stream " + std::to_string(stream_id) + " is already open"};
  }
  if (sessions_.size() >= options_.max_streams) {
    counters_.refused++;
    return ErrorReply{ErrorCode::kTooLarge, "the controller is serving its limit of " +
                                                std::to_string(options_.max_streams) +
                                                " streams (--max-streams): try again later"};
  }
  auto push = open_push();
  if (auto* error = std::get_if<ErrorReply>(&push)) {
    counters_.refused++;
    return *error;
  }
  StreamResources::Push& p = std::get<StreamResources::Push>(push);
  auto s = std::make_unique<Session>();
  s->kind = Session::Kind::kPush;
  s->routing_id = routing_id;
  s->id = stream_id;
  s->resource = p.resource;
  s->started_ms = s->last_heard_ms = now_ms;
  s->sink = std::move(p.sink);
  s->receiver = std::make_unique<transfer::StreamReceiver>(s->sink.get(), limits_, options_.window,
                                                           stream_id);
  const transfer::StreamOpen open{stream_id, p.resource, p.cursor, s->receiver->InitialCredit()};
  if (Send(routing_id, request_id, open) != SendResult::kSent) {
    (void)s->sink->Finish(false);
    return std::nullopt;  // the peer is gone or stuck: nothing to reply to
  }
  spdlog::debug("stream: {} to {} by peer {} opened after '{}'", what, p.resource,
                PeerName(routing_id), p.cursor);
  sessions_.emplace(key, std::move(s));
  counters_.opened++;
  counters_.active = sessions_.size();
  return std::nullopt;
}

void StreamServer::OnChunk(Session& s, const transfer::StreamChunkView& chunk) {
  counters_.bytes_received += chunk.data.size();
  if (Status st = s.receiver->OnChunk(chunk); !st.ok()) return Fail(s.key(), st.message(), false);
  if (s.receiver->done()) {
    // The client hears of the end only once everything is durable and the cursor gone.
    if (Status st = s.sink->Finish(true); !st.ok()) return Fail(s.key(), st.message(), false);
    const transfer::TransferCounters& c = s.receiver->counters();
    Send(s.routing_id, 0, transfer::StreamEnd{s.id, c.records, c.record_bytes, c.chunks});
    spdlog::info("stream: push to {} by peer {}: {} records ({}), {} bytes", s.resource,
                 PeerName(s.routing_id), c.records, s.sink->Summary(), c.record_bytes);
    return Complete(s.key());
  }
  s.credit_owed += s.receiver->TakeCredit();
  bool waiting = false;
  PumpCredit(s, &waiting);
}

void StreamServer::OnCredit(Session& s, uint32_t chunks) {
  s.granted += chunks;
  // A receiver grants back what it consumed: never more in flight than its window.
  if (s.granted - s.sender->counters().chunks > s.window) {
    return Fail(s.key(),
                "credit of " + std::to_string(s.granted - s.sender->counters().chunks) +
                    " chunks in flight is more than the window of " + std::to_string(s.window) +
                    " given in the open",
                false);
  }
  s.sender->AddCredit(chunks);
}

void StreamServer::OnEnd(Session& s, const transfer::StreamEnd& end) {
  const transfer::TransferCounters& c = s.sender->counters();
  if (!s.sender->done() || s.has_pending) {
    return Fail(s.key(), "an end came before the last chunk was sent", false);
  }
  if (end.records != c.records || end.bytes != c.record_bytes || end.chunks != c.chunks) {
    return Fail(s.key(),
                "the receiver acknowledged " + std::to_string(end.records) + " records, " +
                    std::to_string(end.bytes) + " bytes in " + std::to_string(end.chunks) +
                    " chunks; sent were " + std::to_string(c.records) + " records, " +
                    std::to_string(c.record_bytes) + " bytes in " + std::to_string(c.chunks) +
                    " chunks",
                true);
  }
  spdlog::info("stream: pull of {} by peer {}: {} records, {} bytes in {} ms", s.resource,
               PeerName(s.routing_id), c.records, c.record_bytes,
               base::MonotonicMs() - s.started_ms);
  Complete(s.key());
}

bool StreamServer::Pump() {
  bool waiting = false;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    Session& s = *it->second;
    ++it;  // s may end (and leave the map) below
    if (s.kind == Session::Kind::kPull) {
      PumpPull(s, &waiting);
    } else {
      PumpCredit(s, &waiting);
    }
  }
  return waiting;
}

bool StreamServer::PumpPull(Session& s, bool* waiting) {
  for (;;) {
    if (s.has_pending) {
      const SendResult r = send_(s.routing_id, s.pending);
      if (r == SendResult::kFull) {
        *waiting = true;
        return true;
      }
      if (r == SendResult::kGone) {
        Fail(s.key(), "the peer is gone", true);
        return false;
      }
      counters_.bytes_sent += s.pending_bytes;
      s.has_pending = false;
    }
    if (s.sender->done() || s.sender->credit() == 0) return true;
    Result<std::optional<transfer::StreamChunk>> chunk = s.sender->NextChunk();
    if (!chunk.ok()) {
      Fail(s.key(), chunk.status().message(), false);
      return false;
    }
    if (!chunk->has_value()) return true;
    // Encoded into a pooled buffer that libzmq sends without a copy.
    // Moved into the message: passing the chunk itself would copy it into a temporary.
    std::string buffer = pool_->Take();
    transfer::StreamMessage message(std::move(**chunk));
    ControllerCodec::EncodeStream(0, message, &buffer);
    s.pending = pool_->Wrap(std::move(buffer));
    s.has_pending = true;
    std::string& data = std::get<transfer::StreamChunk>(message).data;
    s.pending_bytes = data.size();
    s.sender->Recycle(std::move(data));
  }
}

bool StreamServer::PumpCredit(Session& s, bool* waiting) {
  if (s.credit_owed == 0) return true;
  const SendResult r = Send(s.routing_id, 0, transfer::StreamCredit{s.id, s.credit_owed});
  if (r == SendResult::kFull) {
    *waiting = true;
    return true;
  }
  if (r == SendResult::kGone) {
    Fail(s.key(), "the peer is gone", true);
    return false;
  }
  s.credit_owed = 0;
  return true;
}

void StreamServer::Expire(uint64_t now_ms) {
  std::vector<Key> silent;
  for (const auto& [key, s] : sessions_) {
    if (now_ms - s->last_heard_ms > options_.idle_timeout_ms) silent.push_back(key);
  }
  for (const Key& key : silent) {
    counters_.expired++;
    Fail(key,
         "no word from the peer within " + std::to_string(options_.idle_timeout_ms / 1000) +
             " s: the stream is abandoned",
         false);
  }
}

void StreamServer::Fail(const Key& key, const std::string& text, bool peer_error) {
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return;
  Session& s = *it->second;
  if (!peer_error) Send(s.routing_id, 0, transfer::StreamError{s.id, text});
  if (s.kind == Session::Kind::kPush) {
    if (Status st = s.sink->Finish(false); !st.ok()) spdlog::error("controller: {}", st.message());
  }
  spdlog::warn("stream: {} {} by peer {} failed: {}", s.what(), s.resource, PeerName(s.routing_id),
               text);
  counters_.failed++;
  Remove(key);
}

void StreamServer::Complete(const Key& key) {
  counters_.completed++;
  Remove(key);
}

void StreamServer::Remove(const Key& key) {
  sessions_.erase(key);
  counters_.active = sessions_.size();
}

}  // namespace pollen::controller
