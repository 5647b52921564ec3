// The node's side of the cluster: one connection to the broker, for one campaign.
//
// The client publishes messages (filling in the header: campaign, node id, session,
// sequence number), receives the other nodes' messages of its campaign, validated and with
// duplicates dropped by hash, sends a heartbeat with the node's stats every second, and
// survives broker restarts: ZeroMQ reconnects by itself, messages published meanwhile wait
// in the queue (up to the high-water mark), and the client announces itself again as soon
// as a new connection is up. Everything dropped, refused or lost is counted.
//
// Single-threaded: one thread calls every method (the node's coordinator loop), and must
// call Poll at least once per heartbeat interval.
#ifndef POLLEN_BROKER_CLIENT_BROKER_CLIENT_H_
#define POLLEN_BROKER_CLIENT_BROKER_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "broker/client/cluster_message.h"
#include "broker/client/drop_reason.h"
#include "broker/client/message_reader.h"
#include "net/curve_keys.h"

namespace pollen::broker {

struct ClientOptions {
  std::string broker;  // the broker's endpoint, e.g. tcp://broker:7100
  Campaign campaign;
  std::string node_id;  // unique in the cluster
  // CURVE: this node's key pair and the broker's public key (Z85). All empty: plain text.
  net::CurveKeyPair keys;
  std::string broker_public_key;

  MessageLimits limits;
  int high_water_mark = 10000;  // messages queued each way
  uint64_t heartbeat_interval_ms = 1000;
  size_t dedup_capacity = 1 << 18;  // hashes of inputs sent or received, remembered
  // After the broker refused this node's key, connect again after this long, doubling up to
  // a minute: libzmq gives up on a refused connection, and the key may be authorised later
  // (the broker rereads its authorised-keys directory every second).
  uint64_t refused_retry_ms = 5000;
};

struct ClientStats {
  uint64_t sent = 0;      // messages handed to ZeroMQ, heartbeats excluded
  uint64_t received = 0;  // messages returned by Poll
  uint64_t inputs_sent = 0;
  uint64_t inputs_received = 0;
  uint64_t heartbeats_sent = 0;
  // Received messages dropped, by reason; and sends dropped: kSlowPeer (the queue to the
  // broker was full) and kDuplicate (an input this client had already sent or received).
  DropCounts drops;
  uint64_t lost = 0;      // deliveries the broker numbered for this node that never came
  uint64_t connects = 0;  // handshakes that succeeded: the first one and each reconnection
  uint64_t disconnects = 0;
  uint64_t auth_failures = 0;  // handshakes the broker refused: this node's key is not authorised
  bool connected = false;
};

class BrokerClient {
 public:
  virtual ~BrokerClient() = default;

  // Sends `body` to every other node of the campaign (to_node empty) or to one node (a reply
  // to a MissingRequest, for instance). Never blocks: with the queue to the broker full, the
  // message is dropped and counted. An input this client has already sent or received is
  // not sent again to the campaign (counted as kDuplicate); replies to one node always go.
  // Error: a message beyond the limits, which no receiver would accept.
  virtual Status Publish(MessageBody body, const std::string& to_node = "") = 0;

  // Waits up to timeout_ms for messages; appends at most `max` valid ones to `out` and
  // returns how many. Also sends the heartbeat when due and follows the connection's state.
  virtual size_t Poll(int timeout_ms, std::vector<ClusterMessage>* out, size_t max = 1024) = 0;

  // The stats the next heartbeats carry.
  virtual void SetNodeStats(const NodeStats& stats) = 0;

  // Those of `hashes` this client has neither sent nor received (as far as its dedup set
  // remembers): what to ask for after a digest, if the corpus lacks them too.
  virtual std::vector<base::Digest> Unseen(const std::vector<base::Digest>& hashes) const = 0;

  // Forgets that the input `hash` was received: the node could not take it (its queue of
  // inputs to run was full), so the next digest that lists it asks for it again.
  virtual void Forget(const base::Digest& hash) = 0;

  virtual ClientStats stats() const = 0;
};

// Creates the connection (which completes in the background) and queues a first heartbeat.
// Errors: invalid keys or endpoint.
Result<std::unique_ptr<BrokerClient>> ConnectBroker(const ClientOptions& options);

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_BROKER_CLIENT_H_
