// The controller's side of NamedByteSequence streams (docs/controller.md, "Streams"): pulls
// of a campaign's corpus or pushed inputs, and pushes into its pushed inputs, multiplexed on
// the controller's one ROUTER socket by (peer routing id, stream id).
//
// Runs on the controller's service thread, between the other requests: a message from a
// peer is handled at once (a push's chunk is committed, its credit granted back), and Pump
// sends what the pulls' credit allows, one chunk after another; each chunk read from a store
// costs about one chunk of work, so a stream never holds the loop for long, and other
// requests (a status, a heartbeat) are answered between chunks. Bounds:
//   - at most max_streams streams at once (an open beyond is refused with a stream error);
//   - a pull's credit never more than its window (at most max_window chunks in flight: a
//     receiver that grants more than it consumed is refused), so a stream queues at most
//     max_window chunks in ZeroMQ;
//   - a stream whose peer says nothing for idle_timeout_ms is ended (a dead client's stream
//     is freed; a push keeps its resume cursor).
//
// Thread safety: none; the service thread owns it.
#ifndef POLLEN_CONTROLLER_STREAM_SERVER_H_
#define POLLEN_CONTROLLER_STREAM_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <zmq.hpp>

#include "controller/client/controller_message.h"
#include "controller/controller_status.h"
#include "controller/stream_resources.h"
#include "transfer/frame_pool.h"
#include "transfer/record_codec.h"
#include "transfer/stream_message.h"

namespace pollen::controller {

struct StreamServerOptions {
  size_t max_streams = 16;
  uint64_t idle_timeout_ms = 60000;
  size_t chunk_bytes = 256 << 10;  // of the chunks the controller sends
  uint32_t window = 8;             // the credit the controller grants a push
  uint32_t max_window = 64;        // the most credit a pull may give
};

class StreamServer {
 public:
  enum class SendResult { kSent, kFull, kGone };
  // Hands one frame (a ControllerMessage) to the peer `routing_id` without waiting: kSent
  // (the frame was taken), kFull (its queue is full: the frame is left, try again later), or
  // kGone (no such peer any more).
  using SendFn = std::function<SendResult(const std::string& routing_id, zmq::message_t& frame)>;

  // `resources` must outlive the server. `limits` are the records' (names, sizes, chunks).
  StreamServer(const StreamServerOptions& options, const transfer::StreamLimits& limits,
               StreamResources* resources, SendFn send);
  // Ends every stream; pushes keep their cursors.
  ~StreamServer();

  // A stream message from `routing_id`; a chunk's data is `chunk_data`.
  void OnMessage(const std::string& routing_id, const transfer::StreamMessage& message,
                 std::string_view chunk_data, uint64_t now_ms);

  // A push request: sends the open (as the reply to request_id) and returns nullopt, or
  // returns the error to reply with.
  std::optional<ErrorReply> OnPush(const std::string& routing_id, uint64_t request_id,
                                   const PushCorpusRequest& request, uint64_t now_ms);
  // A node's crash push: the same, into a CrashPushSink.
  std::optional<ErrorReply> OnPushCrash(const std::string& routing_id, uint64_t request_id,
                                        const PushCrashRequest& request, uint64_t now_ms);

  // A build push: the same, into a BuildPushSink.
  std::optional<ErrorReply> OnPushBuild(const std::string& routing_id, uint64_t request_id,
                                        const PushBuildRequest& request, uint64_t now_ms);

  // Sends what the pulls' credit allows. True when something waits for room in a peer's
  // queue: call again soon.
  bool Pump();

  // Ends the streams whose peer was silent for idle_timeout_ms.
  void Expire(uint64_t now_ms);

  const StreamCounters& counters() const { return counters_; }

 private:
  struct Session;
  using Key = std::pair<std::string, uint64_t>;  // routing id, stream id

  void OnOpen(const std::string& routing_id, const transfer::StreamOpen& open, uint64_t now_ms);
  // Opens a push session into what open_push gives (`what` names it in the log).
  std::optional<ErrorReply> StartPush(
      const std::string& routing_id, uint64_t request_id, uint64_t stream_id,
      const std::string& what, uint64_t now_ms,
      const std::function<std::variant<StreamResources::Push, ErrorReply>()>& open_push);
  void OnChunk(Session& s, const transfer::StreamChunkView& chunk);
  void OnCredit(Session& s, uint32_t chunks);
  void OnEnd(Session& s, const transfer::StreamEnd& end);
  // Sends the next chunks of a pull within its credit; false when the session ended.
  bool PumpPull(Session& s, bool* waiting);
  // Grants a push the credit it is owed; false when the peer is gone.
  bool PumpCredit(Session& s, bool* waiting);
  // Sends a message best effort (kGone and kFull drop it).
  SendResult Send(const std::string& routing_id, uint64_t request_id,
                  const transfer::StreamMessage& message);
  // Ends a session: an error sent to the peer unless `peer_error`, a push's cursor kept.
  void Fail(const Key& key, const std::string& text, bool peer_error);
  void Complete(const Key& key);
  void Remove(const Key& key);

  const StreamServerOptions options_;
  const transfer::StreamLimits limits_;
  StreamResources* resources_;
  SendFn send_;
  std::map<Key, std::unique_ptr<Session>> sessions_;
  std::shared_ptr<transfer::FramePool> pool_;  // the chunks' frames
  std::string frame_;                          // the last small frame encoded
  StreamCounters counters_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_STREAM_SERVER_H_
