// corpus_sync_bench: `pollen corpus push` and `pull` throughput through an in-process
// controller (docs/benchmarks.md, "Corpus pull and push"), against raw TCP copies of the
// same bytes.
//
//   corpus_sync_bench [--smoke] [--push-only] [--entries=N] [--entry-kb=K]
//                     [--mode=plain|curve|both] [--repeat=R] [--dir=PATH]
//   defaults: 10,000 entries of 90-110 KB (about 1 GB), both modes, each measurement once,
//   files under $TMPDIR; --smoke: 200 entries of about 10 KB, every byte checked (ctest -L bench);
//   --push-only: no raw copies, no pulls (to profile a push)
//
// First the speed of SHA-1 (portable, and with the CPU's SHA extensions), which the
// controller computes for every pushed input.
//
// The corpus is written once as a libFuzzer-style directory (then in the page cache). On
// tcp loopback, in this process:
//  1. raw TCP copy, memory: the record stream's bytes (each entry's header, name, data) from
//     memory with write() by one thread, read() into a 256 KiB buffer by another: the ceiling.
//  2. raw TCP copy, files: the same, but the writer reads each file and the reader writes
//     each record as a file (no fsync): what a naive copy tool does.
//  2b. raw TCP copy, files to a log: the writer reads each file, the reader appends all it
//     receives to one file (no fsync), as `tar c | nc` into a file would: the same I/O as a
//     push, whose controller appends to its store's logs.
//  3. push: PushStream (controller/client/stream_client.h) from a DirectorySource into a controller
//     started for the run, which commits every entry to its pushed corpus (RocksDB).
//  4. pull, once the controller's background work after the push is over: PullStream of
//     corpus/<campaign> from that controller (reading its stores) into a
//     DirectorySink (no fsync, as `pollen corpus pull` without --sync);
//  5. pull, no files: the same into a sink that only counts: the stream and the controller's
//     reads without the client's file system.
// Plain text and CURVE (the controller a CURVE server with its ZAP handler, as deployed).
// Reported: MB/s (10^6 bytes of the record stream per wall-clock second), CPU seconds of the
// whole process (client, controller, libzmq threads) per GB, and ratios to the raw copies.
// Before each measurement the bench touches and frees 1.5x the stream's size of memory
// (bench::WarmFreeMemory), so that what it writes lands in memory the host backs even on a VM
// that hands free memory back. Each run measures the raw copies, then the pushes and pulls.
// With --repeat, the best of R runs of each. A measurement, not a test: exits non-zero only
// when something fails or an entry arrives wrong.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

#include "base/clock.h"
#include "base/sha1.h"
#include "base/sha1_blocks.h"
#include "bench/bench_util.h"
#include "bench/sync_corpus.h"
#include "controller/client/controller_client.h"
#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "controller/controller.h"
#include "net/curve_keys.h"
#include "transfer/directory_records.h"
#include "transfer/record_codec.h"

namespace pollen::controller {
namespace {

namespace fs = std::filesystem;

constexpr int kCheckEvery = 64;  // files compared byte for byte after a pull (all with --smoke)

struct Config {
  size_t entries = 10000;
  size_t entry_kb = 100;  // mean; sizes spread over +-10%
  std::string mode = "both";
  int repeat = 1;
  std::string dir;
  bool smoke = false;
  bool push_only = false;  // for profiling the push: no raw copies, no pulls
};

using bench::Corpus;
using bench::CpuModel;
using bench::KeepBest;
using bench::ParseFlag;
using bench::ProcessCpuSeconds;
using bench::RawCopy;
using bench::RawKind;
using bench::TcpPair;
using bench::Timing;
using bench::WriteAll;

std::string FirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Memory warmed before each measurement (bench::WarmFreeMemory): what the largest one writes
// (a pull's files, a push's store) with room to spare.
size_t g_warm_bytes = 0;

// Times `run` (true on success), after warming g_warm_bytes of memory.
template <typename Fn>
std::optional<Timing> Measure(Fn run) {
  bench::WarmFreeMemory(g_warm_bytes);
  const uint64_t start = base::MonotonicUs();
  const double cpu = ProcessCpuSeconds();
  if (!run()) return std::nullopt;
  return Timing{static_cast<double>(base::MonotonicUs() - start) / 1e6, ProcessCpuSeconds() - cpu};
}

// MB/s of SHA-1 over 100 MB with `blocks` (the push hashes every input on the controller).
double Sha1MBps(void (*blocks)(uint32_t h[5], const uint8_t* data, size_t blocks)) {
  std::vector<uint8_t> data(100 << 20, 0x5a);
  uint32_t h[5] = {1, 2, 3, 4, 5};
  const uint64_t start = base::MonotonicUs();
  blocks(h, data.data(), data.size() / 64);
  const double seconds = static_cast<double>(base::MonotonicUs() - start) / 1e6 + 1e-9;
  asm volatile("" : : "r"(h[0]) : "memory");  // the digest is used: the hashing stays
  return static_cast<double>(data.size()) / seconds / 1e6;
}

// A controller on its own thread, a campaign registered, and the client options to reach it.
class BenchController {
 public:
  static std::unique_ptr<BenchController> Start(const std::string& dir, bool curve) {
    auto c = std::unique_ptr<BenchController>(new BenchController());
    ControllerOptions options;
    options.listen = "tcp://127.0.0.1:*";
    options.data_dir = dir + "/data";
    options.merge_every_ms = 0;
    options.allow_plaintext = !curve;
    if (curve) {
      const net::CurveKeyPair server = net::GenerateKeyPair().value();
      c->client_.keys = net::GenerateKeyPair().value();
      fs::create_directories(dir + "/authorized");
      if (!net::WriteKeyPair(dir + "/authorized/client", c->client_.keys, false).ok()) {
        return nullptr;
      }
      options.secret_key = server.secret_key;
      options.authorized_dir = dir + "/authorized";
      c->client_.controller_public_key = server.public_key;
    }
    auto started = StartController(options);
    if (!started.ok()) {
      std::fprintf(stderr, "corpus_sync_bench: %s\n", started.status().message().c_str());
      return nullptr;
    }
    c->controller_ = std::move(started).value();
    c->client_.controller = c->controller_->endpoint();
    c->thread_ = std::thread([p = c.get()] { p->controller_->Run(); });
    auto client = ConnectController(c->client_);
    if (!client.ok()) return nullptr;
    auto reg = (*client)->Call<RegisterReply>(
        RegisterRequest{"bench-node", "bench", "bench_fuzzer", "0123456789abcdef", "", "", 1},
        30000);
    if (!reg.ok()) {
      std::fprintf(stderr, "corpus_sync_bench: %s\n", reg.status().message().c_str());
      return nullptr;
    }
    return c;
  }
  ~BenchController() {
    if (controller_) controller_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  const ControllerClientOptions& client() const { return client_; }

 private:
  BenchController() = default;
  std::unique_ptr<Controller> controller_;
  std::thread thread_;
  ControllerClientOptions client_;
};

// Waits (up to 60 s) until this process is nearly idle: after a push the controller's
// RocksDB flushes and compacts in the background, which a pull measured at once would share
// the CPUs with.
void WaitForQuiet() {
  const uint64_t deadline = base::MonotonicMs() + 60000;
  double before = ProcessCpuSeconds();
  while (base::MonotonicMs() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a measuring interval
    const double now = ProcessCpuSeconds();
    if (now - before < 0.01) return;  // under 5% of one CPU
    before = now;
  }
}

bool Push(const BenchController& c, const Corpus& corpus) {
  Result<PushResult> pushed =
      PushStream(c.client(), CampaignRef{"bench", ""}, "push-bench",
                 [&](const std::string& after) -> Result<std::unique_ptr<transfer::RecordSource>> {
                   auto source = transfer::DirectorySource::Open(corpus.dir(), after);
                   if (!source.ok()) return source.status();
                   return std::unique_ptr<transfer::RecordSource>(std::move(source).value());
                 });
  if (!pushed.ok() || pushed->counters.records != corpus.count()) {
    std::fprintf(stderr, "corpus_sync_bench: push: %s\n",
                 pushed.ok() ? "records missing" : pushed.status().message().c_str());
    return false;
  }
  return true;
}

// Counts what it gets: a pull without the cost of writing files.
class CountingSink : public transfer::RecordSink {
 public:
  Status Commit(std::string_view, std::string_view data) override {
    bytes_ += data.size();
    return Status::Ok();
  }

 private:
  uint64_t bytes_ = 0;
};

// Pulls into `to_dir`, or into a CountingSink when it is empty.
bool Pull(const BenchController& c, const std::string& to_dir, size_t expected) {
  transfer::DirectorySinkOptions options;
  options.sync = false;
  std::unique_ptr<transfer::RecordSink> sink(new CountingSink());
  if (!to_dir.empty()) {
    auto directory = transfer::DirectorySink::Open(to_dir, options);
    if (!directory.ok()) return false;
    sink = std::move(directory).value();
  }
  Result<transfer::TransferCounters> pulled =
      PullStream(c.client(), CorpusResource("bench"), "", sink.get());
  if (!pulled.ok() || pulled->records != expected) {
    std::fprintf(stderr, "corpus_sync_bench: pull: %s\n",
                 pulled.ok() ? "records missing" : pulled.status().message().c_str());
    return false;
  }
  return true;
}

// The pulled directory holds every entry under its SHA-1 (checked every kCheckEvery-th, or all).
bool CheckPulled(const Corpus& corpus, const std::string& dir, bool all) {
  std::string data;
  for (size_t i = 0; i < corpus.count(); i++) {
    if (!all && i % kCheckEvery != 0) continue;
    corpus.Data(i, &data);
    const std::string hash =
        base::Sha1Hex(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    std::ifstream file(dir + "/" + hash, std::ios::binary);
    std::string got((std::istreambuf_iterator<char>(file)), {});
    if (got != data) {
      std::fprintf(stderr, "corpus_sync_bench: entry %zu arrived wrong or not at all\n", i);
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);  // the controller's per-stream lines
  Config config;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    std::string v;
    if (arg == "--smoke") {
      config.smoke = true;
      config.entries = 200;
      config.entry_kb = 10;
    } else if (arg == "--push-only") {
      config.push_only = true;
    } else if (ParseFlag(arg, "entries", &v) && std::stoul(v) > 0) {
      config.entries = std::stoul(v);
    } else if (ParseFlag(arg, "entry-kb", &v) && std::stoul(v) > 0) {
      config.entry_kb = std::stoul(v);
    } else if (ParseFlag(arg, "mode", &v) && (v == "plain" || v == "curve" || v == "both")) {
      config.mode = v;
    } else if (ParseFlag(arg, "repeat", &v) && std::stoi(v) > 0) {
      config.repeat = std::stoi(v);
    } else if (ParseFlag(arg, "dir", &v)) {
      config.dir = v;
    } else {
      std::fprintf(stderr,
                   "usage: corpus_sync_bench [--smoke] [--push-only] [--entries=N] "
                   "[--entry-kb=K] [--mode=plain|curve|both] [--repeat=R] [--dir=PATH]\n");
      return 2;
    }
  }
  std::string base = config.dir.empty() ? fs::temp_directory_path().string() : config.dir;
  std::string tmpl = base + "/corpus-sync-bench-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::perror("corpus_sync_bench: mkdtemp");
    return 1;
  }
  const std::string work = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};

  const Corpus corpus(config.entries, config.entry_kb, work + "/corpus");
  if (!corpus.Write()) {
    std::fprintf(stderr, "corpus_sync_bench: cannot write the corpus under %s\n", work.c_str());
    return 1;
  }
  g_warm_bytes = corpus.stream_bytes() + corpus.stream_bytes() / 2;
  const double mb = static_cast<double>(corpus.stream_bytes()) / 1e6;
  std::printf(
      "corpus_sync_bench: %zu entries of %zu KB +-10%% = %.1f MB of data, %.1f MB of "
      "stream; chunks of 256 KiB, window 8; best of %d\n",
      corpus.count(), config.entry_kb, static_cast<double>(corpus.data_bytes()) / 1e6, mb,
      config.repeat);
  std::printf("CPU: %s, %u hardware threads; load average %s\n", CpuModel().c_str(),
              std::thread::hardware_concurrency(), FirstLine("/proc/loadavg").c_str());
  if (!config.smoke) {
    std::printf("SHA-1: portable %.0f MB/s", Sha1MBps(base::Sha1BlocksPortable));
    if (base::Sha1ExtensionsAvailable()) {
      std::printf(", SHA extensions %.0f MB/s (used)", Sha1MBps(base::Sha1BlocksShaNi));
    } else {
      std::printf(" (used: this CPU has no SHA extensions)");
    }
    std::printf("\n");
  }

  // Each run measures the raw copies and then pushes and pulls, so that the comparators and
  // what they are compared with meet the same state of the machine (on a VM, pages the
  // guest has not touched for a while cost a fault to the host on first write: a copy into
  // files run first can be twice as slow as the same copy run later).
  std::optional<Timing> raw_memory, raw_files, raw_log;
  struct ModeBest {
    std::optional<Timing> push, pull, count;
  };
  ModeBest modes[2];
  const std::string raw_to = work + "/raw";
  for (int r = 0; r < config.repeat; r++) {
    if (!config.push_only) {
      std::optional<Timing> t = Measure([&] { return RawCopy(corpus, RawKind::kMemory, ""); });
      if (!t) return 1;
      KeepBest(&raw_memory, *t);
      fs::create_directories(raw_to);
      t = Measure([&] { return RawCopy(corpus, RawKind::kFiles, raw_to); });
      fs::remove_all(raw_to);
      if (!t) return 1;
      KeepBest(&raw_files, *t);
      t = Measure([&] { return RawCopy(corpus, RawKind::kLog, raw_to); });
      fs::remove_all(raw_to);
      if (!t) return 1;
      KeepBest(&raw_log, *t);
    }
    for (bool curve : {false, true}) {
      if (config.mode != "both" && (config.mode == "curve") != curve) continue;
      ModeBest& best = modes[curve ? 1 : 0];
      const std::string run = work + "/run";
      fs::remove_all(run);
      std::unique_ptr<BenchController> c = BenchController::Start(run, curve);
      if (!c) return 1;
      std::optional<Timing> push = Measure([&] { return Push(*c, corpus); });
      if (!push) return 1;
      KeepBest(&best.push, *push);
      if (config.push_only) continue;
      WaitForQuiet();
      std::optional<Timing> pull =
          Measure([&] { return Pull(*c, run + "/pulled", corpus.count()); });
      if (!pull || !CheckPulled(corpus, run + "/pulled", config.smoke)) return 1;
      KeepBest(&best.pull, *pull);
      std::optional<Timing> count = Measure([&] { return Pull(*c, "", corpus.count()); });
      if (!count) return 1;
      KeepBest(&best.count, *count);
      c.reset();
      fs::remove_all(run);
    }
  }

  const auto print = [&](const char* what, const Timing& t, bool ratios) {
    std::printf("%-26s %7.1f MB in %6.2f s = %7.1f MB/s, CPU %5.2f s/GB", what, mb, t.seconds,
                mb / t.seconds, t.cpu_seconds / (mb / 1000));
    if (ratios) {
      std::printf("  | %.2fx raw memory copy, %.2fx raw file copy, %.2fx raw copy to a log",
                  raw_memory->seconds / t.seconds, raw_files->seconds / t.seconds,
                  raw_log->seconds / t.seconds);
    }
    std::printf("\n");
  };
  if (!config.push_only) {
    print("raw TCP copy, memory", *raw_memory, false);
    print("raw TCP copy, files", *raw_files, false);
    print("raw TCP copy, files to log", *raw_log, false);
  }
  for (bool curve : {false, true}) {
    const ModeBest& best = modes[curve ? 1 : 0];
    if (!best.push) continue;
    const bool ratios = !config.push_only;
    print(curve ? "push, CURVE" : "push, plain", *best.push, ratios);
    if (!ratios) continue;
    print(curve ? "pull, CURVE" : "pull, plain", *best.pull, true);
    print(curve ? "pull, CURVE, no files" : "pull, plain, no files", *best.count, true);
  }
  std::printf("load average after: %s\n", FirstLine("/proc/loadavg").c_str());
  return 0;
}

}  // namespace
}  // namespace pollen::controller

int main(int argc, char** argv) { return pollen::controller::Main(argc, argv); }
