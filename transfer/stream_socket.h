// A NamedByteSequence stream over one ZeroMQ DEALER socket with one peer, run to its end by
// a blocking call: each message is one frame holding a StreamMessage root (one Cap'n Proto
// flat array). For tools, tests and benchmarks that stream between two sockets; the
// controller runs StreamSender/StreamReceiver inside its own protocol instead.
//
// Either end may bind (the other connects); the receiving end always opens the stream.
// CURVE follows the broker's rules (docs/cluster.md, "Security: CURVE"): the binding side
// is the CURVE server with a broker::ZapHandler that authorises client keys, started in the
// socket's context before the socket binds, and answered while these calls wait
// (StreamSocketOptions::zap); the connecting side knows the server's public key.
#ifndef POLLEN_TRANSFER_STREAM_SOCKET_H_
#define POLLEN_TRANSFER_STREAM_SOCKET_H_

#include <functional>
#include <memory>
#include <string>
#include <zmq.hpp>

#include "base/status.h"
#include "net/curve_keys.h"
#include "net/zap_handler.h"
#include "transfer/record_codec.h"
#include "transfer/stream_message.h"
#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"

namespace pollen::transfer {

struct StreamSocketOptions {
  // The longest wait for the peer: its next message, or room in the queue to it. A stream
  // of any length runs as long as the peer keeps answering within it.
  int idle_timeout_ms = 30000;
  size_t chunk_bytes = kDefaultChunkBytes;  // the sending end's
  uint32_t window = kDefaultWindow;         // the receiving end's credit, in chunks
  StreamLimits limits;
  // When set, requests waiting on it are answered whenever these calls wait (the binding
  // end of a CURVE connection). Not owned.
  net::ZapHandler* zap = nullptr;
};

// Sets the socket options both ends share (net/socket_options.h: heartbeats, message
// size bound from options.limits, high-water marks above the window), then a linger of
// 2 s so that the last message of a stream (end, error) still leaves after the socket is
// closed. Call before bind or connect. Errors: libzmq's.
Status SetStreamSocketOptions(zmq::socket_t& socket, const StreamSocketOptions& options);

// Makes `socket` a CURVE server with this Z85 secret key, in ZAP domain "pollen". Call
// before bind, after starting a broker::ZapHandler in its context. Errors: invalid key.
Status SetCurveServer(zmq::socket_t& socket, const std::string& secret_key);

// Makes `socket` a CURVE client with `keys` of a server whose public key (Z85) is
// `server_public_key`. Call before connect. Errors: invalid keys.
Status SetCurveClient(zmq::socket_t& socket, const net::CurveKeyPair& keys,
                      const std::string& server_public_key);

// The receiving end: sends `open` (its stream id, resource and resume cursor; the credit is
// set to options.window), then commits what comes into `sink` (not owned), granting credit
// back per chunk consumed, and acknowledges the last chunk with an end message. Returns
// what was committed. Errors: the stream's (StreamReceiver::OnChunk, which is also sent to
// the peer as an error message), the peer's error message, an unexpected message, or no
// word from the peer within options.idle_timeout_ms. Records committed before an error
// stay committed: open again with resume_after = the sink's last committed name.
Result<TransferCounters> ReceiveStream(zmq::socket_t& socket, const StreamOpen& open,
                                       RecordSink* sink, const StreamSocketOptions& options);

// Gives the records to send for an open message (its resource and resume cursor), or an
// error that is sent to the receiver.
using SourceOpener = std::function<Result<std::unique_ptr<RecordSource>>(const StreamOpen& open)>;

// The sending end: waits for an open, gets a source from `open_source`, sends the stream in
// chunks of options.chunk_bytes, never more than the credit granted, and waits for the
// receiver's end message, whose totals must match what was sent. Returns what was sent.
// Errors: the source's or a record's (also sent to the peer), the peer's error message, a
// totals mismatch, an unexpected message, or silence beyond options.idle_timeout_ms.
Result<TransferCounters> SendStream(zmq::socket_t& socket, const SourceOpener& open_source,
                                    const StreamSocketOptions& options);

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_STREAM_SOCKET_H_
