#include "transfer/stream_socket.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <variant>
#include <vector>

#include "base/clock.h"
#include "net/socket_options.h"
#include "net/tsan_handoff.h"
#include "net/zmq_status.h"
#include "transfer/frame_pool.h"

namespace pollen::transfer {
namespace {

constexpr int kLingerMs = 2000;

std::string Describe(const StreamMessage& message) {
  static constexpr const char* kNames[] = {"open", "chunk", "credit", "end", "error"};
  return kNames[message.index()];
}

// One stream's messages over a socket, with every wait bounded by the idle timeout and the
// ZAP handler answered meanwhile.
class Channel {
 public:
  Channel(zmq::socket_t& socket, const StreamSocketOptions& options)
      : socket_(socket), options_(options), pool_(FramePool::Make(options.window + 2)) {}

  Status Send(const StreamMessage& message) {
    zmq::message_t frame;
    if (std::holds_alternative<StreamChunk>(message)) {
      std::string buffer = pool_->Take();
      EncodeStreamMessage(message, &buffer);
      frame = pool_->Wrap(std::move(buffer));
    } else {
      EncodeStreamMessage(message, &small_);
      frame = zmq::message_t(small_.data(), small_.size());
    }
    net::MarkSent(frame);
    const uint64_t deadline = base::MonotonicMs() + options_.idle_timeout_ms;
    Status waited = Status::Ok();
    Status sent = net::ZmqCallWith([&] { return "cannot send a stream " + Describe(message); },
                                   [&] {
                                     while (!socket_.send(frame, zmq::send_flags::dontwait)) {
                                       waited = Wait(ZMQ_POLLOUT, deadline,
                                                     "room to send a " + Describe(message));
                                       if (!waited.ok()) return;
                                     }
                                   });
    return waited.ok() ? sent : waited;
  }

  // Best effort: the stream is failing anyway.
  void SendError(uint64_t stream_id, const std::string& text) {
    (void)Send(StreamError{stream_id, text});
  }

  // The next message of `stream_id` into *out (whose chunk buffer is reused). A message of
  // another stream is an error.
  // A chunk's data is left in the frame, *chunk_data points to it until the next receive.
  Status Receive(uint64_t stream_id, const std::string& awaited, StreamMessage* out,
                 std::string_view* chunk_data = nullptr) {
    if (Status s = ReceiveAny(awaited, out, chunk_data); !s.ok()) return s;
    if (StreamIdOf(*out) != stream_id) {
      return Status::Error("a stream " + Describe(*out) + " of stream " +
                           std::to_string(StreamIdOf(*out)) + " came on stream " +
                           std::to_string(stream_id));
    }
    return Status::Ok();
  }

  Status ReceiveAny(const std::string& awaited, StreamMessage* out,
                    std::string_view* chunk_data = nullptr) {
    const uint64_t deadline = base::MonotonicMs() + options_.idle_timeout_ms;
    zmq::message_t& frame = frame_;
    Status got = Status::Ok();
    Status received = net::ZmqCall("cannot receive a stream message", [&] {
      while (!socket_.recv(frame, zmq::recv_flags::dontwait)) {
        got = Wait(ZMQ_POLLIN, deadline, awaited);
        if (!got.ok()) return;
      }
      if (frame.more()) {
        zmq::message_t rest;
        while (socket_.recv(rest, zmq::recv_flags::dontwait) && rest.more()) {
        }
        got = Status::Error("the peer sent a multi-part message; a stream message is one frame");
        return;
      }
      net::MarkReceived(frame);
    });
    if (!got.ok()) return got;
    if (!received.ok()) return received;
    if (chunk_data != nullptr) {
      return DecodeStreamMessage(frame.data(), frame.size(), options_.limits, out, chunk_data);
    }
    return DecodeStreamMessage(frame.data(), frame.size(), options_.limits, out);
  }

 private:
  // Waits until `events` may be ready on the socket, answering the ZAP handler meanwhile.
  Status Wait(short events, uint64_t deadline, const std::string& awaited) {
    for (;;) {
      const uint64_t now = base::MonotonicMs();
      if (now >= deadline) {
        return Status::Error("no " + awaited + " from the peer within " +
                             std::to_string(options_.idle_timeout_ms) +
                             " ms (is it running, reachable, and are the keys right?)");
      }
      zmq::pollitem_t items[2] = {{socket_.handle(), 0, events, 0}, {nullptr, 0, ZMQ_POLLIN, 0}};
      int count = 1;
      if (options_.zap != nullptr) {
        items[1].socket = options_.zap->socket().handle();
        count = 2;
      }
      zmq::poll(items, count, std::chrono::milliseconds(deadline - now));
      if (count == 2 && (items[1].revents & ZMQ_POLLIN)) options_.zap->HandlePending();
      if (items[0].revents & events) return Status::Ok();
    }
  }

  zmq::socket_t& socket_;
  const StreamSocketOptions& options_;
  std::shared_ptr<FramePool> pool_;
  std::string small_;     // the encoding of the last message that was not a chunk
  zmq::message_t frame_;  // the last frame received: chunk data is read in place
};

Status PeerError(const StreamError& error, const char* peer) {
  return Status::Error(std::string("the ") + peer + " stopped the stream: " + error.text);
}

}  // namespace

Status SetStreamSocketOptions(zmq::socket_t& socket, const StreamSocketOptions& options) {
  return net::ZmqCall("cannot set the stream socket's options", [&] {
    // Credit keeps at most `window` chunks in flight; the rest of the queue is for the small
    // messages (credit, end, error).
    const uint64_t high_water_mark = uint64_t{options.window} * 2 + 16;
    net::SetSharedSocketOptions(socket,
                                static_cast<int>(std::min<uint64_t>(high_water_mark, INT_MAX)),
                                MaxEncodedStreamMessageBytes(options.limits));
    socket.set(zmq::sockopt::linger, kLingerMs);
  });
}

Status SetCurveServer(zmq::socket_t& socket, const std::string& secret_key) {
  return net::ZmqCall("cannot make the socket a CURVE server",
                      [&] { net::SetCurveServer(socket, secret_key); });
}

Status SetCurveClient(zmq::socket_t& socket, const net::CurveKeyPair& keys,
                      const std::string& server_public_key) {
  return net::ZmqCall("cannot make the socket a CURVE client",
                      [&] { net::SetCurveClient(socket, keys, server_public_key); });
}

Result<TransferCounters> ReceiveStream(zmq::socket_t& socket, const StreamOpen& open,
                                       RecordSink* sink, const StreamSocketOptions& options) {
  Channel channel(socket, options);
  StreamReceiver receiver(sink, options.limits, options.window, open.stream_id);
  StreamOpen request = open;
  request.credit = receiver.InitialCredit();
  if (Status s = channel.Send(request); !s.ok()) return s;
  StreamMessage m;
  std::string_view chunk_data;  // in the frame received: not copied
  for (;;) {
    if (Status s = channel.Receive(open.stream_id, "stream chunk", &m, &chunk_data); !s.ok()) {
      channel.SendError(open.stream_id, s.message());
      return s;
    }
    if (const auto* error = std::get_if<StreamError>(&m)) return PeerError(*error, "sender");
    const auto* chunk = std::get_if<StreamChunk>(&m);
    if (chunk == nullptr) {
      const std::string text = "a stream " + Describe(m) + " came where a chunk was expected";
      channel.SendError(open.stream_id, text);
      return Status::Error(text);
    }
    if (Status s = receiver.OnChunk(
            StreamChunkView{chunk->stream_id, chunk->seq, chunk_data, chunk->last});
        !s.ok()) {
      channel.SendError(open.stream_id, s.message());
      return s;
    }
    if (receiver.done()) {
      const TransferCounters& c = receiver.counters();
      if (Status s = channel.Send(StreamEnd{open.stream_id, c.records, c.record_bytes, c.chunks});
          !s.ok()) {
        return s;
      }
      return c;
    }
    if (const uint32_t credit = receiver.TakeCredit(); credit > 0) {
      if (Status s = channel.Send(StreamCredit{open.stream_id, credit}); !s.ok()) return s;
    }
  }
}

Result<TransferCounters> SendStream(zmq::socket_t& socket, const SourceOpener& open_source,
                                    const StreamSocketOptions& options) {
  Channel channel(socket, options);
  StreamMessage first;
  if (Status s = channel.ReceiveAny("stream open", &first); !s.ok()) return s;
  const auto* open = std::get_if<StreamOpen>(&first);
  if (open == nullptr) {
    const std::string text = "a stream " + Describe(first) + " came where an open was expected";
    channel.SendError(StreamIdOf(first), text);
    return Status::Error(text);
  }
  const uint64_t id = open->stream_id;
  Result<std::unique_ptr<RecordSource>> source = open_source(*open);
  if (!source.ok()) {
    channel.SendError(id, source.status().message());
    return source.status();
  }
  StreamSender sender(source->get(), options.chunk_bytes, options.limits, id);
  sender.AddCredit(open->credit);
  for (;;) {
    while (!sender.done()) {
      Result<std::optional<StreamChunk>> chunk = sender.NextChunk();
      if (!chunk.ok()) {
        channel.SendError(id, chunk.status().message());
        return chunk.status();
      }
      if (!chunk->has_value()) break;  // no credit left
      // Moved into the message: passing the chunk itself would copy it into a temporary.
      StreamMessage message(std::move(**chunk));
      if (Status s = channel.Send(message); !s.ok()) return s;
      sender.Recycle(std::move(std::get<StreamChunk>(message).data));
    }
    StreamMessage m;
    if (Status s = channel.Receive(id, sender.done() ? "stream end" : "stream credit", &m);
        !s.ok()) {
      channel.SendError(id, s.message());
      return s;
    }
    if (const auto* credit = std::get_if<StreamCredit>(&m)) {
      sender.AddCredit(credit->chunks);
      continue;
    }
    if (const auto* error = std::get_if<StreamError>(&m)) return PeerError(*error, "receiver");
    const auto* end = std::get_if<StreamEnd>(&m);
    const TransferCounters& c = sender.counters();
    if (end == nullptr || !sender.done()) {
      const std::string text =
          end == nullptr ? "a stream " + Describe(m) + " came where credit or an end was expected"
                         : std::string("a stream end came before the last chunk was sent");
      channel.SendError(id, text);
      return Status::Error(text);
    }
    if (end->records != c.records || end->bytes != c.record_bytes || end->chunks != c.chunks) {
      return Status::Error(
          "the receiver acknowledged " + std::to_string(end->records) + " records, " +
          std::to_string(end->bytes) + " bytes in " + std::to_string(end->chunks) +
          " chunks; sent were " + std::to_string(c.records) + " records, " +
          std::to_string(c.record_bytes) + " bytes in " + std::to_string(c.chunks) + " chunks");
    }
    return c;
  }
}

}  // namespace pollen::transfer
