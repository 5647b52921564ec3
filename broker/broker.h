// The cluster broker: relays messages between the nodes of each campaign (docs/cluster.md).
//
// One ROUTER socket; each node connects one DEALER. A node's messages go to the other
// nodes of its campaign (or to one node, for replies), after validation and dedup; nothing
// is sent back to its sender, heartbeats are kept by the broker. Sends never block: a node
// whose queue is full (high-water mark) misses that message, which is counted, and every
// other node still gets it. With CURVE every connection is authenticated and encrypted,
// and only keys in the authorised-keys directory get in.
#ifndef POLLEN_BROKER_BROKER_H_
#define POLLEN_BROKER_BROKER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "broker/broker_stats.h"
#include "broker/client/message_reader.h"
#include "broker/peer_table.h"

namespace pollen::broker {

struct BrokerOptions {
  // Where to listen: a ZeroMQ endpoint such as tcp://*:7100 or tcp://127.0.0.1:* (any port).
  std::string listen;
  // CURVE: the broker's secret key (Z85) and the directory of the authorised nodes' .pub
  // files. Both empty means plain text, refused unless allow_plaintext.
  std::string secret_key;
  std::string authorized_dir;
  bool allow_plaintext = false;

  MessageLimits limits;
  PeerTableLimits peers;
  int high_water_mark = 10000;       // messages queued per node, each way
  uint64_t peer_timeout_ms = 10000;  // a node silent this long is dropped (heartbeats: 1 s)
  int io_threads = 2;                // ZeroMQ I/O threads: they do the CURVE encryption
  size_t batch = 1024;               // messages handled per wake-up, between timer checks

  // Called from Run's thread every status_interval_ms (0: never).
  uint64_t status_interval_ms = 0;
  std::function<void(const BrokerStatus&)> on_status;
};

class Broker {
 public:
  virtual ~Broker() = default;

  // The endpoint it listens on, with the port resolved ("tcp://0.0.0.0:7100").
  virtual std::string endpoint() const = 0;

  // Relays until Stop() is called or should_stop (if given) returns true; both are checked
  // at least every 100 ms. Call from one thread at a time.
  virtual void Run(const std::function<bool()>& should_stop = nullptr) = 0;

  // Makes Run return. Thread-safe.
  virtual void Stop() = 0;

  // The counters after the last batch; the rates of the last status interval. Thread-safe.
  virtual BrokerStatus status() const = 0;
};

// Binds the socket (and the ZAP handler for CURVE) and returns a broker ready to Run.
// Errors: bad options, unreadable keys, an address that is invalid or in use.
Result<std::unique_ptr<Broker>> StartBroker(const BrokerOptions& options);

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_BROKER_H_
