#include "controller/client/stream_client.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <optional>
#include <sstream>
#include <zmq.hpp>

#include "base/clock.h"
#include "base/sha1.h"
#include "controller/client/controller_codec.h"
#include "controller/client/crash_source.h"
#include "net/connection_monitor.h"
#include "net/socket_options.h"
#include "net/zmq_status.h"
#include "transfer/frame_pool.h"
#include "transfer/one_record_source.h"

namespace pollen::controller {
namespace {

constexpr uint64_t kStreamId = 1;  // one stream per connection
constexpr uint64_t kPushRequestId = 1;
constexpr int kReconnectMs = 100;
constexpr int kLingerMs = 2000;  // the last message (end, error) still leaves after closing
constexpr uint64_t kStopCheckMs = 100;

const char* KindName(const transfer::StreamMessage& m) {
  static constexpr const char* kNames[] = {"open", "chunk", "credit", "end", "error"};
  return kNames[m.index()];
}

// One connection to the controller that carries one stream: ControllerMessage frames with
// a stream message (or the pushCorpus request), every wait bounded.
class StreamLink {
 public:
  StreamLink(const ControllerClientOptions& client, const StreamClientOptions& options)
      : client_(client),
        options_(options),
        codec_(client.limits),
        context_(1),
        dealer_(context_, zmq::socket_type::dealer),
        monitor_(context_, dealer_) {}

  Status Connect() {
    const bool curve = !client_.keys.secret_key.empty();
    if (curve && client_.controller_public_key.empty()) {
      return Status::Error("CURVE needs the controller's public key");
    }
    return net::ZmqCall("cannot connect to the controller at " + client_.controller, [&] {
      const uint64_t high_water_mark = uint64_t{options_.window} * 2 + 16;
      net::SetSharedSocketOptions(dealer_,
                                  static_cast<int>(std::min<uint64_t>(high_water_mark, INT_MAX)),
                                  client_.limits.max_message_bytes);
      dealer_.set(zmq::sockopt::linger, kLingerMs);
      // The open is not queued before a connection is up: it waits (bounded) instead.
      dealer_.set(zmq::sockopt::immediate, 1);
      dealer_.set(zmq::sockopt::reconnect_ivl, kReconnectMs);
      if (curve) {
        net::SetCurveClient(dealer_, client_.keys, client_.controller_public_key);
      }
      dealer_.connect(client_.controller);
    });
  }

  Status Send(uint64_t request_id, const transfer::StreamMessage& message) {
    if (std::holds_alternative<transfer::StreamChunk>(message)) {
      // A chunk goes to libzmq without a copy, in a pooled buffer.
      std::string buffer = pool_->Take();
      ControllerCodec::EncodeStream(request_id, message, &buffer);
      zmq::message_t frame = pool_->Wrap(std::move(buffer));
      return SendFrame(frame);
    }
    ControllerCodec::EncodeStream(request_id, message, &frame_);
    zmq::message_t frame(frame_.data(), frame_.size());
    return SendFrame(frame);
  }

  Status SendRequest(uint64_t request_id, const Request& request) {
    std::vector<uint8_t> bytes = ControllerCodec::EncodeRequest(request_id, request);
    zmq::message_t frame(bytes.data(), bytes.size());
    return SendFrame(frame);
  }

  // Best effort, for a stream that fails anyway: tells the controller to free its side.
  void SendError(const std::string& text) {
    if (!connected_) return;
    (void)net::ZmqCall("send", [&] {
      ControllerCodec::EncodeStream(0, transfer::StreamError{kStreamId, text}, &frame_);
      (void)dealer_.send(zmq::buffer(frame_), zmq::send_flags::dontwait);
    });
  }

  // The next stream message into *out; a chunk's data in *chunk_data, valid until the next
  // call. An error reply of the controller, or a message of another stream, is an error.
  Status Receive(transfer::StreamMessage* out, std::string_view* chunk_data) {
    if (Status s = CheckStop(); !s.ok()) return s;  // also while messages keep coming
    const uint64_t deadline = Deadline();
    for (;;) {
      bool received = false;
      Status recv = net::ZmqCallWith(
          [&] { return "cannot receive from the controller at " + client_.controller; },
          [&] { received = dealer_.recv(frame_in_, zmq::recv_flags::dontwait).has_value(); });
      if (!recv.ok()) return recv;
      if (received) break;
      if (Status s = Wait(ZMQ_POLLIN, deadline); !s.ok()) return s;
    }
    heard_ = true;
    if (frame_in_.more()) {
      return Status::Error("controller at " + client_.controller +
                           " sent a multi-part message; a stream message is one frame");
    }
    auto decoded = codec_.DecodeReply(frame_in_.data(), frame_in_.size());
    if (auto* error = std::get_if<DecodeError>(&decoded)) {
      return Status::Error("controller at " + client_.controller +
                           " sent a message that cannot be read: " + error->message);
    }
    DecodedReply& reply = std::get<DecodedReply>(decoded);
    if (auto* error = std::get_if<ErrorReply>(&reply.reply)) {
      return Status::Error("controller at " + client_.controller + ": " + error->message);
    }
    auto* stream = std::get_if<StreamReply>(&reply.reply);
    if (stream == nullptr) {
      return Status::Error("controller at " + client_.controller +
                           " answered with something else than a stream message");
    }
    if (transfer::StreamIdOf(stream->message) != kStreamId) {
      return Status::Error("controller at " + client_.controller + " sent a message of stream " +
                           std::to_string(transfer::StreamIdOf(stream->message)));
    }
    *out = std::move(stream->message);
    *chunk_data = reply.chunk_data;
    return Status::Ok();
  }

 private:
  // Before the controller's first answer the connection's time limit applies, then the
  // idle one.
  uint64_t Deadline() const {
    return base::MonotonicMs() +
           static_cast<uint64_t>(heard_ ? options_.idle_timeout_ms : options_.connect_timeout_ms);
  }

  // Sends `frame` (taken on success), waiting for room.
  Status SendFrame(zmq::message_t& frame) {
    const uint64_t deadline = Deadline();
    for (;;) {
      bool sent = false;
      Status send = net::ZmqCallWith(
          [&] { return "cannot send to the controller at " + client_.controller; },
          [&] { sent = dealer_.send(frame, zmq::send_flags::dontwait).has_value(); });
      if (sent) return Status::Ok();
      // Interrupted by a signal: tried again.
      if (!send.ok() && send.code() != StatusCode::kInterrupted) return send;
      if (Status s = Wait(ZMQ_POLLOUT, deadline); !s.ok()) return s;
    }
  }

  // "interrupted" (and the controller told) once should_stop says so.
  Status CheckStop() {
    if (!options_.should_stop || !options_.should_stop()) return Status::Ok();
    SendError("interrupted");
    return Status::Error("interrupted");
  }

  // Waits until `events` may be ready, following the connection: a refused key, a lost
  // connection, the deadline and should_stop end the wait with an error.
  Status Wait(short events, uint64_t deadline) {
    for (;;) {
      const net::ConnectionMonitor::Events seen = monitor_.Drain();
      if (seen.handshakes > 0) connected_ = true;
      if (seen.auth_failures > 0) return Status::Error(RefusedKeyText(client_.controller));
      if (connected_ && seen.disconnects > 0) {
        return Status::Error("lost the connection to the controller at " + client_.controller +
                             " in the middle of the stream (is it still running?)");
      }
      if (Status s = CheckStop(); !s.ok()) return s;
      const uint64_t now = base::MonotonicMs();
      if (now >= deadline) {
        const int waited = heard_ ? options_.idle_timeout_ms : options_.connect_timeout_ms;
        return Status::Error(
            NoAnswerText(client_.controller, waited, connected_, !client_.keys.secret_key.empty()));
      }
      zmq::pollitem_t items[2] = {{dealer_.handle(), 0, events, 0},
                                  {monitor_.socket().handle(), 0, ZMQ_POLLIN, 0}};
      // Interrupted or not: round again; the deadline still holds.
      (void)net::Poll(items, 2, std::chrono::milliseconds(std::min(deadline - now, kStopCheckMs)));
      if (items[0].revents & events) return Status::Ok();
    }
  }

  const ControllerClientOptions& client_;
  const StreamClientOptions& options_;
  ControllerCodec codec_;
  zmq::context_t context_;  // before the sockets: destroyed after them
  zmq::socket_t dealer_;
  net::ConnectionMonitor monitor_;
  std::shared_ptr<transfer::FramePool> pool_ = transfer::FramePool::Make(2 * options_.window + 2);
  std::string frame_;        // the last small frame encoded
  zmq::message_t frame_in_;  // the last frame received
  bool connected_ = false;
  bool heard_ = false;
};

Status StoppedBy(const transfer::StreamError& error) {
  return Status::Error("the controller stopped the stream: " + error.text);
}

}  // namespace

Result<transfer::TransferCounters> PullStream(const ControllerClientOptions& client,
                                              const std::string& resource,
                                              const std::string& resume_after,
                                              transfer::RecordSink* sink,
                                              const StreamProgress& progress,
                                              const StreamClientOptions& options) {
  StreamLink link(client, options);
  if (Status s = link.Connect(); !s.ok()) return s;
  transfer::StreamReceiver receiver(sink, client.limits.stream, options.window, kStreamId);
  if (Status s = link.Send(
          0, transfer::StreamOpen{kStreamId, resource, resume_after, receiver.InitialCredit()});
      !s.ok()) {
    return s;
  }
  transfer::StreamMessage m;
  std::string_view chunk_data;
  for (;;) {
    if (Status s = link.Receive(&m, &chunk_data); !s.ok()) {
      link.SendError(s.message());
      return s;
    }
    if (const auto* error = std::get_if<transfer::StreamError>(&m)) return StoppedBy(*error);
    const auto* chunk = std::get_if<transfer::StreamChunk>(&m);
    if (chunk == nullptr) {
      const std::string text =
          std::string("a stream ") + KindName(m) + " came where a chunk was expected";
      link.SendError(text);
      return Status::Error(text);
    }
    if (Status s = receiver.OnChunk(
            transfer::StreamChunkView{chunk->stream_id, chunk->seq, chunk_data, chunk->last});
        !s.ok()) {
      link.SendError(s.message());
      return s;
    }
    if (progress) progress(receiver.counters());
    if (receiver.done()) {
      const transfer::TransferCounters& c = receiver.counters();
      if (Status s =
              link.Send(0, transfer::StreamEnd{kStreamId, c.records, c.record_bytes, c.chunks});
          !s.ok()) {
        return s;
      }
      return c;
    }
    if (const uint32_t credit = receiver.TakeCredit(); credit > 0) {
      if (Status s = link.Send(0, transfer::StreamCredit{kStreamId, credit}); !s.ok()) return s;
    }
  }
}

namespace {

// Sends `open_request` (a push request whose stream id is kStreamId), then the records of
// the source opened after the controller's cursor.
Result<PushResult> RunPush(const ControllerClientOptions& client, const Request& open_request,
                           const PushSourceOpener& open_source, const StreamProgress& progress,
                           const StreamClientOptions& options) {
  StreamLink link(client, options);
  if (Status s = link.Connect(); !s.ok()) return s;
  if (Status s = link.SendRequest(kPushRequestId, open_request); !s.ok()) return s;
  transfer::StreamMessage m;
  std::string_view chunk_data;
  if (Status s = link.Receive(&m, &chunk_data); !s.ok()) return s;
  const auto* open = std::get_if<transfer::StreamOpen>(&m);
  if (open == nullptr) {
    if (const auto* error = std::get_if<transfer::StreamError>(&m)) return StoppedBy(*error);
    return Status::Error(std::string("controller at ") + client.controller +
                         " answered a push with a stream " + KindName(m) + " instead of an open");
  }
  PushResult result;
  result.resumed_after = open->resume_after;
  Result<std::unique_ptr<transfer::RecordSource>> source = open_source(open->resume_after);
  if (!source.ok()) {
    link.SendError(source.status().message());
    return source.status();
  }
  transfer::StreamSender sender(source->get(), options.chunk_bytes, client.limits.stream,
                                kStreamId);
  sender.AddCredit(open->credit);
  for (;;) {
    while (!sender.done()) {
      Result<std::optional<transfer::StreamChunk>> chunk = sender.NextChunk();
      if (!chunk.ok()) {
        link.SendError(chunk.status().message());
        return chunk.status();
      }
      if (!chunk->has_value()) break;  // no credit left
      // Moved into the message: passing the chunk itself would copy it into a temporary.
      transfer::StreamMessage message(std::move(**chunk));
      if (Status s = link.Send(0, message); !s.ok()) return s;
      sender.Recycle(std::move(std::get<transfer::StreamChunk>(message).data));
      if (progress) progress(sender.counters());
    }
    if (Status s = link.Receive(&m, &chunk_data); !s.ok()) {
      link.SendError(s.message());
      return s;
    }
    if (const auto* credit = std::get_if<transfer::StreamCredit>(&m)) {
      sender.AddCredit(credit->chunks);
      continue;
    }
    if (const auto* error = std::get_if<transfer::StreamError>(&m)) return StoppedBy(*error);
    const auto* end = std::get_if<transfer::StreamEnd>(&m);
    const transfer::TransferCounters& c = sender.counters();
    if (end == nullptr || !sender.done()) {
      const std::string text =
          end == nullptr
              ? std::string("a stream ") + KindName(m) + " came where credit or an end was expected"
              : std::string("a stream end came before the last chunk was sent");
      link.SendError(text);
      return Status::Error(text);
    }
    if (end->records != c.records || end->bytes != c.record_bytes || end->chunks != c.chunks) {
      return Status::Error(
          "the controller acknowledged " + std::to_string(end->records) + " records, " +
          std::to_string(end->bytes) + " bytes in " + std::to_string(end->chunks) +
          " chunks; sent were " + std::to_string(c.records) + " records, " +
          std::to_string(c.record_bytes) + " bytes in " + std::to_string(c.chunks) + " chunks");
    }
    result.counters = c;
    return result;
  }
}

}  // namespace

Result<PushResult> PushStream(const ControllerClientOptions& client, const CampaignRef& campaign,
                              const std::string& push_id, const PushSourceOpener& open_source,
                              const StreamProgress& progress, const StreamClientOptions& options) {
  return RunPush(client, PushCorpusRequest{campaign, push_id, kStreamId}, open_source, progress,
                 options);
}

Status PushCrashStream(const ControllerClientOptions& client, const std::string& campaign,
                       CrashRequest crash, const StreamClientOptions& options) {
  const PushCrashRequest request{crash.node_id, campaign,        crash.signature,
                                 crash.kind,    crash.minimized, kStreamId};
  Result<PushResult> pushed = RunPush(
      client, request,
      [&](const std::string&) -> Result<std::unique_ptr<transfer::RecordSource>> {
        // The same records the controller serves as crash/<campaign>/<signature>.
        return std::unique_ptr<transfer::RecordSource>(
            new CrashSource(std::move(crash.input), std::move(crash.report), ""));
      },
      nullptr, options);
  return pushed.ok() ? Status::Ok() : pushed.status();
}

Result<std::string> PushBuildStream(const ControllerClientOptions& client,
                                    const std::string& campaign, const std::string& target,
                                    const std::string& path, const StreamClientOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read the build " + path);
  std::ostringstream read;
  read << in.rdbuf();
  std::string bytes = std::move(read).str();
  if (bytes.size() > client.limits.stream.max_record_bytes) {
    return Status::Error("the build " + path + " has " + std::to_string(bytes.size()) +
                         " bytes; a pushed build has at most " +
                         std::to_string(client.limits.stream.max_record_bytes));
  }
  const std::string build_id =
      base::BuildIdOf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  Result<PushResult> pushed = PushBuildRecords(
      client, PushBuildRequest{campaign, target, build_id, 0},
      [&](const std::string&) -> Result<std::unique_ptr<transfer::RecordSource>> {
        return std::unique_ptr<transfer::RecordSource>(
            new transfer::OneRecordSource(target, std::move(bytes)));
      },
      options);
  if (!pushed.ok()) return pushed.status();
  return build_id;
}

Result<PushResult> PushBuildRecords(const ControllerClientOptions& client, PushBuildRequest request,
                                    const PushSourceOpener& open_source,
                                    const StreamClientOptions& options) {
  request.stream_id = kStreamId;
  return RunPush(client, request, open_source, nullptr, options);
}

std::string PushIdFor(const std::string& origin) {
  return "push-" + base::Sha1Hex(reinterpret_cast<const uint8_t*>(origin.data()), origin.size())
                       .substr(0, 32);
}

}  // namespace pollen::controller
