// transfer_bench: throughput of NamedByteSequence streams (docs/transfer.md, "Throughput")
// against a raw TCP copy of the same bytes.
//
//   transfer_bench [--smoke] [--records=N] [--record-kb=K] [--chunk-kb=C] [--window=W]
//                  [--mode=plain|curve|both] [--repeat=R]
//   defaults: 10,000 records of 90-110 KB (about 1 GB), 256 KiB chunks, a window of 8, both
//   modes, each measurement once; --smoke: 200 records of about 10 KB (ctest -L bench)
//
// All on tcp loopback in this process, one thread per end:
//  1. raw TCP copy: the record stream's bytes (headers, names, data), written from memory
//     with write() in 256 KiB pieces by one thread and read with read() into a 256 KiB buffer
//     by another. No framing, no flow control, no copies but the kernel's: the ceiling.
//  2. stream, plain: SendStream and ReceiveStream (transfer/stream_socket.h) over two DEALER
//     sockets, the sender generating the records from a pool of random bytes, the receiver's
//     sink only counting them (and comparing every 64th with what was sent).
//  3. stream, CURVE: the same with CURVE (authentication and encryption of every frame), the
//     receiving end the CURVE server with a ZAP handler, as in `pollen corpus pull`.
// Reported: MB/s (10^6 bytes of the record stream per second of wall-clock time), the CPU
// time of the process (all threads) per GB, and each stream's ratios to the raw copy. With
// --repeat, the best of R runs of each (wall-clock and CPU apart): on a shared machine the
// CPU time is the steadier figure.
// A measurement, not a test: exits non-zero only when a stream fails or loses a record.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "base/clock.h"
#include "bench/bench_util.h"
#include "net/curve_keys.h"
#include "net/zap_handler.h"
#include "transfer/record_codec.h"
#include "transfer/stream_socket.h"

namespace pollen::transfer {
namespace {

constexpr size_t kRawBufferBytes = 256 << 10;
constexpr int kCheckEvery = 64;  // records compared byte for byte by the receiving sink

struct Config {
  size_t records = 10000;
  size_t record_kb = 100;  // mean; sizes are spread over ±10%
  size_t chunk_kb = 256;
  uint32_t window = kDefaultWindow;
  std::string mode = "both";
  int repeat = 1;
};

using bench::BestOf;
using bench::CpuModel;
using bench::ParseFlag;
using bench::ProcessCpuSeconds;
using bench::Timing;

// The records of the run: names, sizes and offsets into one pool of random bytes, so that
// generating a record costs one copy (as reading a cached file would) and the receiver can
// check what it got.
class Workload {
 public:
  explicit Workload(const Config& config) {
    const size_t mean = config.record_kb * 1000, spread = mean / 10;
    std::mt19937_64 rng(12345);
    pool_.resize(mean + spread + (1 << 20));
    for (auto& c : pool_) c = static_cast<char>(rng());
    for (size_t i = 0; i < config.records; i++) {
      const size_t size = mean - spread + (spread ? rng() % (2 * spread + 1) : 0);
      sizes_.push_back(size);
      offsets_.push_back(rng() % (pool_.size() - size + 1));
      data_bytes_ += size;
      stream_bytes_ += kRecordHeaderBytes + Name(i).size() + size;
    }
  }

  static std::string Name(size_t i) {
    char name[32];
    std::snprintf(name, sizeof(name), "record-%08zu", i);
    return name;
  }
  size_t count() const { return sizes_.size(); }
  std::string_view Data(size_t i) const { return {pool_.data() + offsets_[i], sizes_[i]}; }
  uint64_t data_bytes() const { return data_bytes_; }
  uint64_t stream_bytes() const { return stream_bytes_; }

 private:
  std::string pool_;
  std::vector<size_t> sizes_;
  std::vector<size_t> offsets_;
  uint64_t data_bytes_ = 0;
  uint64_t stream_bytes_ = 0;
};

class WorkloadSource : public RecordSource {
 public:
  explicit WorkloadSource(const Workload& workload) : workload_(workload) {}
  Result<bool> Next(std::string* name, std::string* data) override {
    if (next_ == workload_.count()) return false;
    *name = Workload::Name(next_);
    data->assign(workload_.Data(next_));
    next_++;
    return true;
  }

 private:
  const Workload& workload_;
  size_t next_ = 0;
};

class CheckingSink : public RecordSink {
 public:
  explicit CheckingSink(const Workload& workload, bool check_all)
      : workload_(workload), check_all_(check_all) {}
  Status Commit(std::string_view name, std::string_view data) override {
    const size_t i = committed_++;
    if (i >= workload_.count() || data.size() != workload_.Data(i).size() ||
        ((check_all_ || i % kCheckEvery == 0) &&
         (name != Workload::Name(i) || data != workload_.Data(i)))) {
      return Status::Error("record " + std::to_string(i) + " differs from what was sent");
    }
    return Status::Ok();
  }

 private:
  const Workload& workload_;
  bool check_all_;
  size_t committed_ = 0;
};

// Copies the record stream's bytes over a loopback TCP connection; nullopt on error.
std::optional<Timing> RawCopy(const Workload& workload) {
  const std::pair<int, int> fds = bench::TcpPair();  // (lambdas cannot capture bindings)
  const int out = fds.first, in = fds.second;
  if (out < 0 || in < 0) {
    std::perror("transfer_bench: a loopback TCP connection");
    return std::nullopt;
  }
  // The same bytes as the stream: each record's header and name, then its data.
  const uint64_t start = base::MonotonicUs();
  const double cpu_start = ProcessCpuSeconds();
  std::thread writer([&] {
    std::string header;
    const auto write_all = [&](const char* p, size_t n) {
      return bench::WriteAll(out, p, n, kRawBufferBytes);
    };
    for (size_t i = 0; i < workload.count(); i++) {
      header.clear();
      AppendRecordHeader(&header, Workload::Name(i), workload.Data(i).size());
      if (!write_all(header.data(), header.size()) ||
          !write_all(workload.Data(i).data(), workload.Data(i).size())) {
        break;
      }
    }
    close(out);
  });
  std::vector<char> buffer(kRawBufferBytes);
  uint64_t received = 0;
  for (;;) {
    const ssize_t n = read(in, buffer.data(), buffer.size());
    if (n <= 0) break;
    received += static_cast<uint64_t>(n);
  }
  writer.join();
  const Timing timing{static_cast<double>(base::MonotonicUs() - start) / 1e6,
                      ProcessCpuSeconds() - cpu_start};
  close(in);
  if (received != workload.stream_bytes()) {
    std::fprintf(stderr, "transfer_bench: the raw copy received %llu of %llu bytes\n",
                 static_cast<unsigned long long>(received),
                 static_cast<unsigned long long>(workload.stream_bytes()));
    return std::nullopt;
  }
  return timing;
}

// Streams the workload between two DEALER sockets; nullopt on error.
std::optional<Timing> Stream(const Workload& workload, const Config& config, bool curve,
                             bool check_all) {
  StreamSocketOptions options;
  options.chunk_bytes = config.chunk_kb << 10;
  options.window = config.window;
  options.limits.max_chunk_bytes = std::max(options.limits.max_chunk_bytes, options.chunk_bytes);
  zmq::context_t server_context(1), client_context(1);
  zmq::socket_t server(server_context, zmq::socket_type::dealer);
  zmq::socket_t client(client_context, zmq::socket_type::dealer);
  std::unique_ptr<net::ZapHandler> zap;
  std::string keys_dir;
  const auto fail = [&](const std::string& what) -> std::optional<Timing> {
    std::fprintf(stderr, "transfer_bench: %s\n", what.c_str());
    return std::nullopt;
  };
  if (!SetStreamSocketOptions(server, options).ok() ||
      !SetStreamSocketOptions(client, options).ok()) {
    return fail("cannot set socket options");
  }
  if (curve) {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/transfer-bench-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) return fail("cannot create a temporary directory");
    keys_dir = tmpl;
    const net::CurveKeyPair server_keys = net::GenerateKeyPair().value();
    const net::CurveKeyPair client_keys = net::GenerateKeyPair().value();
    if (Status s = net::WriteKeyPair(keys_dir + "/client", client_keys, false); !s.ok()) {
      return fail(s.message());
    }
    auto started = net::ZapHandler::Start(server_context, keys_dir);
    if (!started.ok()) return fail(started.status().message());
    zap = std::move(started.value());
    if (Status s = SetCurveServer(server, server_keys.secret_key); !s.ok()) {
      return fail(s.message());
    }
    if (Status s = SetCurveClient(client, client_keys, server_keys.public_key); !s.ok()) {
      return fail(s.message());
    }
  }
  server.bind("tcp://127.0.0.1:*");
  client.connect(server.get(zmq::sockopt::last_endpoint));
  StreamSocketOptions receiver_options = options;
  receiver_options.zap = zap.get();

  const uint64_t start = base::MonotonicUs();
  const double cpu_start = ProcessCpuSeconds();
  std::optional<Result<TransferCounters>> sent;
  std::thread sender([&] {
    sent = SendStream(
        client,
        [&](const StreamOpen&) -> Result<std::unique_ptr<RecordSource>> {
          return std::unique_ptr<RecordSource>(new WorkloadSource(workload));
        },
        options);
  });
  CheckingSink sink(workload, check_all);
  Result<TransferCounters> received =
      ReceiveStream(server, StreamOpen{1, "bench", "", 0}, &sink, receiver_options);
  sender.join();
  const Timing timing{static_cast<double>(base::MonotonicUs() - start) / 1e6,
                      ProcessCpuSeconds() - cpu_start};
  if (!keys_dir.empty()) std::filesystem::remove_all(keys_dir);
  if (!received.ok()) return fail("receiving: " + received.status().message());
  if (!sent->ok()) return fail("sending: " + sent->status().message());
  if (received->records != workload.count() || received->stream_bytes != workload.stream_bytes()) {
    return fail("the stream delivered " + std::to_string(received->records) + " records");
  }
  return timing;
}

int Main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);  // the ZAP handler's "key accepted" lines
  Config config;
  bool smoke = false;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    std::string v;
    if (arg == "--smoke") {
      smoke = true;
      config.records = 200;
      config.record_kb = 10;
    } else if (ParseFlag(arg, "records", &v)) {
      config.records = std::stoul(v);
    } else if (ParseFlag(arg, "record-kb", &v)) {
      config.record_kb = std::stoul(v);
    } else if (ParseFlag(arg, "chunk-kb", &v) && std::stoul(v) > 0) {
      config.chunk_kb = std::stoul(v);
    } else if (ParseFlag(arg, "window", &v) && std::stoul(v) > 0) {
      config.window = static_cast<uint32_t>(std::stoul(v));
    } else if (ParseFlag(arg, "mode", &v) && (v == "plain" || v == "curve" || v == "both")) {
      config.mode = v;
    } else if (ParseFlag(arg, "repeat", &v) && std::stoi(v) > 0) {
      config.repeat = std::stoi(v);
    } else {
      std::fprintf(stderr,
                   "usage: transfer_bench [--smoke] [--records=N] [--record-kb=K] [--chunk-kb=C] "
                   "[--window=W] [--mode=plain|curve|both] [--repeat=R]\n");
      return 2;
    }
  }
  const Workload workload(config);
  const double mb = static_cast<double>(workload.stream_bytes()) / 1e6;
  std::printf(
      "transfer_bench: %zu records of %zu KB +-10%% = %.1f MB of data, %.1f MB of stream;"
      " chunks of %zu KiB, window %u, best of %d\n",
      workload.count(), config.record_kb, static_cast<double>(workload.data_bytes()) / 1e6, mb,
      config.chunk_kb, config.window, config.repeat);
  std::printf("CPU: %s, %u hardware threads\n", CpuModel().c_str(),
              std::thread::hardware_concurrency());

  // The best wall-clock time of R runs, and the least CPU time (the machine may be shared).
  const auto best = [&](const auto& measure) { return BestOf(config.repeat, measure); };
  const auto print = [&](const char* what, const Timing& t, const Timing* raw) {
    std::printf("%-14s %8.1f MB in %5.2f s = %7.1f MB/s, CPU %5.2f s/GB", what, mb, t.seconds,
                mb / t.seconds, t.cpu_seconds / (mb / 1000));
    if (raw != nullptr) {
      std::printf("  | %.2fx the raw copy's MB/s, %.2fx its CPU", raw->seconds / t.seconds,
                  t.cpu_seconds / raw->cpu_seconds);
    }
    std::printf("\n");
  };
  std::optional<Timing> raw = best([&] { return RawCopy(workload); });
  if (!raw) return 1;
  print("raw TCP copy", *raw, nullptr);
  for (bool curve : {false, true}) {
    if (config.mode != "both" && (config.mode == "curve") != curve) continue;
    std::optional<Timing> t = best([&] { return Stream(workload, config, curve, smoke); });
    if (!t) return 1;
    print(curve ? "stream, CURVE" : "stream, plain", *t, &*raw);
  }
  return 0;
}

}  // namespace
}  // namespace pollen::transfer

int main(int argc, char** argv) { return pollen::transfer::Main(argc, argv); }
