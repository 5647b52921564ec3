// broker_bench: relay throughput and latency of the cluster broker (docs/benchmarks.md,
// "Broker relay").
//
//   broker_bench [--smoke] [--seconds=S] [--nodes=N] [--rate=R] [--io-threads=T]
//   [--mode=curve|plaintext|both] defaults: 5 s per phase, 10 nodes, 10,000 msg/s, 2 ZeroMQ I/O
//   threads, both modes;
//   --smoke: 0.5 s, 3 nodes, 1,000 msg/s (ctest -L bench)
//
// A broker runs in this process on loopback, with N simulated nodes (default 10) in one
// campaign. A simulated node is a bare DEALER socket that speaks the protocol (it announces
// itself with a heartbeat, then sends valid NewInput messages of 1 KiB, each with a new
// hash) but does no work of its own on what it receives: it only counts and timestamps, so
// what is measured is the broker (and the loopback), not a node's decoding. All N nodes
// are driven by one thread, the broker runs on another; the CPU time of the broker's
// thread and of its ZeroMQ I/O threads is reported apart from the rest (it shares the
// machine with the simulated nodes, which do as much CURVE work as the broker).
//  1. throughput: every node sends as fast as it can, with at most `window` deliveries in
//     flight, for S seconds; reported: messages relayed per second (each goes to the N-1
//     other nodes) and deliveries per second, in messages and MB.
//  2. latency: the nodes together send R messages per second (default 10,000), paced in
//     1 ms batches; each delivery's latency is its receive time minus the send time
//     stamped in its bytes; reported: p50, p99, max.
// Both with CURVE (authentication and encryption on every connection) and in plain text.
// A measurement, not a test: exits non-zero only when nothing was delivered.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "base/clock.h"
#include "bench/bench_util.h"
#include "broker/broker.h"
#include "broker/client/message_codec.h"
#include "broker/client/relay_header.h"
#include "net/curve_keys.h"

namespace pollen::broker {
namespace {

constexpr size_t kMessageBytes = 1024;  // the encoded message, as close as the encoding allows
constexpr uint8_t kHashMark = 0xA5, kStampMark = 0x5A;

struct Config {
  bool smoke = false;
  double seconds = 5;
  int nodes = 10;
  double rate = 10000;
  int io_threads = 2;  // of the broker and of the simulated nodes
  std::string mode = "both";
  size_t window = 5000;  // deliveries in flight, below the broker's high-water mark per node
};

using bench::CpuModel;

// The threads of this process.
std::set<int> Threads() {
  std::set<int> tids;
  DIR* d = opendir("/proc/self/task");
  while (dirent* e = d ? readdir(d) : nullptr) {
    if (e->d_name[0] != '.') tids.insert(std::atoi(e->d_name));
  }
  if (d) closedir(d);
  return tids;
}

// CPU time used by these threads so far, in seconds (from the scheduler's ns counters).
double CpuSeconds(const std::set<int>& tids) {
  double total = 0;
  for (int tid : tids) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/schedstat");
    uint64_t ns = 0;
    if (in >> ns) total += static_cast<double>(ns) / 1e9;
  }
  return total;
}

// The broker's share: its Run thread and the I/O threads of its ZeroMQ context.
struct BrokerCpu {
  std::set<int> tids;
  int relay_tid = 0;
  double Now() const { return CpuSeconds(tids); }
  double Relay() const { return CpuSeconds({relay_tid}); }
};

std::string Drops(const BrokerStatus& status) {
  std::string out;
  for (size_t i = 0; i < kNumDropReasons; i++) {
    if (status.totals.drops.by_reason[i] == 0) continue;
    out += std::string(out.empty() ? "" : ", ") + DropReasonName(static_cast<DropReason>(i)) + " " +
           std::to_string(status.totals.drops.by_reason[i]);
  }
  return out.empty() ? "none" : out;
}

size_t Find(const std::vector<uint8_t>& bytes, uint8_t mark, size_t run) {
  for (size_t i = 0; i + run <= bytes.size(); i++) {
    if (std::all_of(bytes.begin() + i, bytes.begin() + i + run,
                    [mark](uint8_t b) { return b == mark; }))
      return i;
  }
  std::fprintf(stderr, "broker_bench: template marker not found\n");
  std::exit(1);
}

// One simulated node: a DEALER and a message template whose hash and send time are patched
// in place before each send.
struct SimNode {
  SimNode(zmq::context_t& context, int index)
      : dealer(context, zmq::socket_type::dealer), index(index) {}
  zmq::socket_t dealer;
  int index;
  std::vector<uint8_t> message;
  size_t hash_at = 0, stamp_at = 0;
  uint64_t sent = 0, received = 0, received_bytes = 0;
};

Campaign BenchCampaign() { return {"bench_target", "bench-build"}; }

std::vector<uint8_t> Template(const std::string& origin) {
  NewInput in;
  in.hash.fill(kHashMark);
  in.features = {8, 16, 24, 1000, 1008, 5000, 70000};
  ClusterMessage m{{BenchCampaign(), origin, 1, 1, ""}, in};
  size_t overhead = EncodeMessage(m).size();
  in.bytes.assign(kMessageBytes - std::min(kMessageBytes - 64, overhead), 0);
  std::fill(in.bytes.begin(), in.bytes.begin() + 8, kStampMark);
  m.body = in;
  return EncodeMessage(m);
}

// Sends node's next message (a new hash, the current time); false when its queue is full.
bool SendOne(SimNode& node, uint64_t phase) {
  uint64_t id = (phase << 56) | (static_cast<uint64_t>(node.index) << 40) | node.sent;
  std::memcpy(node.message.data() + node.hash_at, &id, sizeof(id));
  uint64_t now = base::MonotonicUs();
  std::memcpy(node.message.data() + node.stamp_at, &now, sizeof(now));
  if (!node.dealer.send(zmq::buffer(node.message), zmq::send_flags::dontwait)) return false;
  node.sent++;
  return true;
}

// Receives everything waiting at `node`; appends latencies (µs) when `latencies` is given.
void Drain(SimNode& node, std::vector<uint32_t>* latencies) {
  zmq::message_t header, payload;
  while (node.dealer.recv(header, zmq::recv_flags::dontwait)) {
    if (!header.more() || !node.dealer.recv(payload, zmq::recv_flags::dontwait)) continue;
    node.received++;
    node.received_bytes += payload.size();
    if (latencies != nullptr && payload.size() >= node.stamp_at + 8) {
      uint64_t sent_at;
      std::memcpy(&sent_at, static_cast<const uint8_t*>(payload.data()) + node.stamp_at,
                  sizeof(sent_at));
      latencies->push_back(
          static_cast<uint32_t>(std::min<uint64_t>(base::MonotonicUs() - sent_at, UINT32_MAX)));
    }
  }
}

uint64_t Total(const std::vector<std::unique_ptr<SimNode>>& nodes, uint64_t SimNode::*field) {
  uint64_t total = 0;
  for (const auto& n : nodes) total += (*n).*field;
  return total;
}

void WaitInPoll(std::vector<std::unique_ptr<SimNode>>& nodes, int timeout_ms) {
  std::vector<zmq::pollitem_t> items;
  for (auto& n : nodes) items.push_back({n->dealer.handle(), 0, ZMQ_POLLIN, 0});
  zmq::poll(items, std::chrono::milliseconds(timeout_ms));
}

int RunMode(const Config& config, bool curve) {
  BrokerOptions options;
  options.listen = "tcp://127.0.0.1:*";
  options.io_threads = config.io_threads;
  std::vector<net::CurveKeyPair> node_keys;
  net::CurveKeyPair broker_keys;
  if (curve) {
    char dir_template[] = "/tmp/pollen-broker-bench-XXXXXX";
    std::string dir = mkdtemp(dir_template);
    broker_keys = net::GenerateKeyPair().value();
    mkdir((dir + "/authorized").c_str(), 0755);
    for (int i = 0; i < config.nodes; i++) {
      node_keys.push_back(net::GenerateKeyPair().value());
      std::string prefix = dir + "/authorized/sim-" + std::to_string(i);
      if (!net::WriteKeyPair(prefix, node_keys.back(), false).ok()) return 1;
    }
    options.secret_key = broker_keys.secret_key;
    options.authorized_dir = dir + "/authorized";
  } else {
    options.allow_plaintext = true;
  }
  std::set<int> before = Threads();
  auto started = StartBroker(options);
  if (!started.ok()) {
    std::fprintf(stderr, "broker_bench: %s\n", started.status().message().c_str());
    return 1;
  }
  std::unique_ptr<Broker> broker = std::move(started.value());
  BrokerCpu cpu;
  for (int tid : Threads()) {
    if (!before.count(tid)) cpu.tids.insert(tid);  // the broker context's I/O threads
  }
  std::atomic<int> relay_tid{0};
  std::thread relay([&] {
    relay_tid = static_cast<int>(syscall(SYS_gettid));
    broker->Run();
  });
  while (relay_tid == 0) std::this_thread::yield();
  cpu.tids.insert(relay_tid);
  cpu.relay_tid = relay_tid;

  zmq::context_t context(config.io_threads);
  std::vector<std::unique_ptr<SimNode>> nodes;
  for (int i = 0; i < config.nodes; i++) {
    auto node = std::make_unique<SimNode>(context, i);
    char origin[16];
    std::snprintf(origin, sizeof(origin), "sim-%02d", i);
    node->message = Template(origin);
    node->hash_at = Find(node->message, kHashMark, kHashSize);
    node->stamp_at = Find(node->message, kStampMark, 8);
    node->dealer.set(zmq::sockopt::linger, 0);
    node->dealer.set(zmq::sockopt::sndhwm, 100000);
    node->dealer.set(zmq::sockopt::rcvhwm, 100000);
    if (curve) {
      node->dealer.set(zmq::sockopt::curve_serverkey, broker_keys.public_key);
      node->dealer.set(zmq::sockopt::curve_publickey, node_keys[i].public_key);
      node->dealer.set(zmq::sockopt::curve_secretkey, node_keys[i].secret_key);
    }
    node->dealer.connect(broker->endpoint());
    ClusterMessage hello{{BenchCampaign(), origin, 1, 0, ""}, NodeStats{}};
    node->dealer.send(zmq::buffer(EncodeMessage(hello)), zmq::send_flags::none);
    nodes.push_back(std::move(node));
  }
  uint64_t deadline = base::MonotonicMs() + 10000;
  while (broker->status().nodes < static_cast<size_t>(config.nodes)) {
    if (base::MonotonicMs() > deadline) {
      std::fprintf(stderr, "broker_bench: only %zu of %d nodes joined\n", broker->status().nodes,
                   config.nodes);
      return 1;
    }
    WaitInPoll(nodes, 10);
  }
  const uint64_t fanout = static_cast<uint64_t>(config.nodes - 1);
  const char* mode = curve ? "CURVE" : "plaintext";

  // 1. Throughput. A node may send while no receiver has `window` deliveries in flight.
  auto max_in_flight = [&] {
    uint64_t total = Total(nodes, &SimNode::sent), worst = 0;
    for (auto& n : nodes) worst = std::max(worst, total - n->sent - n->received);
    return worst;
  };
  double cpu_start = cpu.Now(), relay_start = cpu.Relay();
  uint64_t start = base::MonotonicUs(), end = start + static_cast<uint64_t>(config.seconds * 1e6);
  while (base::MonotonicUs() < end) {
    bool sent_any = false;
    for (auto& n : nodes) {
      for (int burst = 0; burst < 16 && max_in_flight() < config.window; burst++) {
        if (!SendOne(*n, 1)) break;
        sent_any = true;
      }
    }
    if (!sent_any) WaitInPoll(nodes, 1);  // the window is full: wait for deliveries, do not spin
    for (auto& n : nodes) Drain(*n, nullptr);
  }
  uint64_t drain_deadline = base::MonotonicMs() + 2000;
  while (Total(nodes, &SimNode::received) < Total(nodes, &SimNode::sent) * fanout &&
         base::MonotonicMs() < drain_deadline) {
    WaitInPoll(nodes, 10);
    for (auto& n : nodes) Drain(*n, nullptr);
  }
  double seconds = static_cast<double>(base::MonotonicUs() - start) / 1e6;
  double broker_cpu = cpu.Now() - cpu_start, relay_cpu = cpu.Relay() - relay_start;
  uint64_t sent = Total(nodes, &SimNode::sent), delivered = Total(nodes, &SimNode::received);
  uint64_t delivered_bytes = Total(nodes, &SimNode::received_bytes);
  double message_size = static_cast<double>(nodes[0]->message.size());
  std::printf(
      "%-9s throughput: %d nodes, %.0f-byte messages, %.1f s: relayed %.0f msg/s (%.1f MB/s in), "
      "delivered %.0f msg/s (%.1f MB/s out); %lu of %lu deliveries made; broker drops: %s\n",
      mode, config.nodes, message_size, seconds, static_cast<double>(sent) / seconds,
      static_cast<double>(sent) * message_size / seconds / 1e6,
      static_cast<double>(delivered) / seconds,
      static_cast<double>(delivered_bytes) / seconds / 1e6, static_cast<unsigned long>(delivered),
      static_cast<unsigned long>(sent * fanout), Drops(broker->status()).c_str());
  std::printf(
      "%-9s broker CPU: %.2f cores busy (relay thread %.2f, ZeroMQ I/O %.2f); per broker "
      "CPU-second: %.0f msg relayed, %.0f delivered (%.1f MB)\n",
      mode, broker_cpu / seconds, relay_cpu / seconds, (broker_cpu - relay_cpu) / seconds,
      static_cast<double>(sent) / broker_cpu, static_cast<double>(delivered) / broker_cpu,
      static_cast<double>(delivered_bytes) / broker_cpu / 1e6);

  // 2. Latency at a fixed rate.
  for (auto& n : nodes) n->sent = n->received = n->received_bytes = 0;
  std::vector<uint32_t> latencies;
  latencies.reserve(
      static_cast<size_t>(config.rate * config.seconds * static_cast<double>(fanout)) + 1024);
  cpu_start = cpu.Now();
  start = base::MonotonicUs();
  end = start + static_cast<uint64_t>(config.seconds * 1e6);
  uint64_t paced = 0;
  for (uint64_t now = start; now < end; now = base::MonotonicUs()) {
    uint64_t due = static_cast<uint64_t>(static_cast<double>(now - start) * config.rate / 1e6);
    for (; paced < due; paced++) SendOne(*nodes[paced % nodes.size()], 2);
    for (auto& n : nodes) Drain(*n, &latencies);
    WaitInPoll(nodes, 1);  // sends go out in 1 ms batches (10 at 10,000/s); receives at once
  }
  drain_deadline = base::MonotonicMs() + 2000;
  while (Total(nodes, &SimNode::received) < Total(nodes, &SimNode::sent) * fanout &&
         base::MonotonicMs() < drain_deadline) {
    WaitInPoll(nodes, 10);
    for (auto& n : nodes) Drain(*n, &latencies);
  }
  if (latencies.empty()) {
    std::fprintf(stderr, "broker_bench: nothing was delivered\n");
    return 1;
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))] /
           1000.0;
  };
  sent = Total(nodes, &SimNode::sent);
  std::printf(
      "%-9s latency at %.0f msg/s (%lu sent, %zu of %lu deliveries): p50 %.2f ms, p99 %.2f ms, "
      "max %.2f ms; broker CPU %.2f cores\n",
      mode, config.rate, static_cast<unsigned long>(sent), latencies.size(),
      static_cast<unsigned long>(sent * fanout), pct(0.50), pct(0.99), latencies.back() / 1000.0,
      (cpu.Now() - cpu_start) / (static_cast<double>(base::MonotonicUs() - start) / 1e6));
  std::fflush(stdout);

  nodes.clear();
  broker->Stop();
  relay.join();
  return 0;
}

bool ParseFlag(const std::string& arg, const std::string& name, std::string* value) {
  std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

}  // namespace
}  // namespace pollen::broker

int main(int argc, char** argv) {
  using namespace pollen::broker;  // NOLINT
  Config config;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i], v;
    if (arg == "--smoke") {
      config.smoke = true;
      config.seconds = 0.5;
      config.nodes = 3;
      config.rate = 1000;
    } else if (ParseFlag(arg, "seconds", &v)) {
      config.seconds = std::stod(v);
    } else if (ParseFlag(arg, "nodes", &v)) {
      config.nodes = std::max(2, std::stoi(v));
    } else if (ParseFlag(arg, "rate", &v)) {
      config.rate = std::stod(v);
    } else if (ParseFlag(arg, "io-threads", &v)) {
      config.io_threads = std::max(1, std::stoi(v));
    } else if (ParseFlag(arg, "mode", &v) && (v == "curve" || v == "plaintext" || v == "both")) {
      config.mode = v;
    } else {
      std::fprintf(
          stderr,
          "usage: broker_bench [--smoke] [--seconds=S] [--nodes=N] [--rate=R] [--io-threads=T] "
          "[--mode=curve|plaintext|both]\n");
      return 2;
    }
  }
  std::printf("broker_bench: %s, %u CPUs\n", CpuModel().c_str(),
              std::thread::hardware_concurrency());
  if (config.mode != "plaintext" && RunMode(config, true) != 0) return 1;
  if (config.mode != "curve" && RunMode(config, false) != 0) return 1;
  return 0;
}
