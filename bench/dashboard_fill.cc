// dashboard_fill: a simulated fleet in a running controller, to measure the dashboard with
// (docs/dashboard.md, "How fast it loads"; bench/dashboard_load.sh runs it):
//
//   dashboard_fill ENDPOINT [--campaign=NAME] [--nodes=N] [--crashes=M] [--nights=K]
//                  [--keep-alive=S]
//   defaults: campaign fill, 1,000 nodes, 10,000 crashes, 30 nights, no keep-alive
//
// Registers N nodes (fill-00001...) of one campaign on 40 hosts, sends each a heartbeat
// with its own figures, reports M crashes with distinct signatures (16 hex digits, as nodes
// send them) from them, and puts K nights of reports (report.json and report.md shaped as
// `pollen nightly` writes them: a coverage that grows night by night, new and fixed
// crashes now and then). With --keep-alive=S it goes on sending every node's heartbeat
// every 5 s for S seconds, so the nodes stay alive while a browser measures; SIGTERM ends
// it early. Plain text: the controller runs with --insecure-plaintext. Prints what it did
// and how long each part took; exits non-zero when the controller refuses anything.
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "bench/bench_util.h"
#include "controller/client/controller_client.h"

namespace pollen::bench {
namespace {

using controller::ControllerClient;

constexpr int kTimeoutMs = 30000;
volatile std::sig_atomic_t stop_requested = 0;

struct Config {
  std::string endpoint;
  std::string campaign = "fill";
  uint64_t nodes = 1000;
  uint64_t crashes = 10000;
  uint64_t nights = 30;
  uint64_t keep_alive_s = 0;
};

bool ParseCount(const std::string& text, uint64_t* out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end;
}

std::string NodeId(uint64_t i) {
  char id[32];
  std::snprintf(id, sizeof(id), "fill-%05llu", static_cast<unsigned long long>(i));
  return id;
}

controller::NodeStats StatsOf(uint64_t i, uint64_t round) {
  controller::NodeStats s;
  s.execs_per_second = 8000 + (i * 7919) % 9000;
  s.executions = (round + 1) * 5 * s.execs_per_second + i * 1000;
  s.edges = 3000 + (i * 31) % 400 + round;
  s.features = 4 * s.edges;
  s.corpus_entries = 900 + (i * 13) % 200;
  s.crashes = i % 10;
  s.rss_bytes = (100 + (i * 17) % 400) << 20;
  return s;
}

// "2026-MM-DD" of the k-th night, from 2026-01-01 (at most a year of nights).
std::string NightName(uint64_t k) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int day = static_cast<int>(k % 365), month = 0;
  while (day >= kDays[month]) day -= kDays[month++];
  char name[16];
  std::snprintf(name, sizeof(name), "2026-%02d-%02d", month + 1, day + 1);
  return name;
}

// The signatures of the crashes reported: 16 hex digits each, as nodes send them; the same
// on every run.
std::vector<std::string> CrashSignatures(uint64_t n) {
  std::mt19937_64 rng(1);
  std::vector<std::string> signatures;
  signatures.reserve(n);
  for (uint64_t i = 0; i < n; i++) {
    char sig[20];
    std::snprintf(sig, sizeof(sig), "%016llx", static_cast<unsigned long long>(rng()));
    signatures.emplace_back(sig);
  }
  return signatures;
}

// A night's report.json, as nightly/night_report.cc writes it (the fields the dashboard reads).
std::string ReportJson(const Config& c, uint64_t k, const std::string& night,
                       const std::vector<std::string>& crashes_reported) {
  auto crashes = [&](uint64_t n, const char* kind) {
    nlohmann::json list = nlohmann::json::array();
    for (uint64_t i = 0; i < n; i++) {
      char sig[20];
      std::snprintf(sig, sizeof(sig), "%08llx%08llx", static_cast<unsigned long long>(k),
                    static_cast<unsigned long long>(i));
      list.push_back({{"signature", sig}, {"kind", kind}, {"count", 1 + i}});
    }
    return list;
  };
  const uint64_t branches = 5000 + 40 * k - (k % 7 == 3 ? 60 : 0);
  const auto totals = [](uint64_t covered, uint64_t count) {
    return nlohmann::json{
        {"covered", covered},
        {"count", count},
        {"percent", 100.0 * static_cast<double>(covered) / static_cast<double>(count)}};
  };
  nlohmann::json j = {{"campaign", c.campaign},
                      {"night", night},
                      {"build_id", "b" + std::to_string(1000 + k)},
                      {"verdict", k % 5 == 2 ? "new-crashes" : "ok"},
                      {"exit_code", k % 5 == 2 ? 1 : 0},
                      {"problems", nlohmann::json::array()},
                      {"new_crashes", crashes(k % 5 == 2 ? 1 + k % 3 : 0, "heap-buffer-overflow")},
                      {"regressed_crashes", nlohmann::json::array()},
                      {"fixed_crashes", crashes(k % 4 == 1 ? 1 : 0, "SEGV")},
                      {"open_crashes", crashes(2 + k % 3, "SEGV")},
                      {"fuzzing",
                       {{"budget_s", 3600},
                        {"elapsed_s", 3600},
                        {"nodes", 20},
                        {"executions", 1000000000 + k * 1000}}},
                      {"coverage",
                       {{"lines", totals(8000 + 50 * k, 20000)},
                        {"branches", totals(branches, 16000)},
                        {"functions", totals(700 + k, 1200)}}}};
  // The ledger knows the first three crashes reported: the first fixed from the second night
  // on, the others open since the first.
  nlohmann::json ledger = nlohmann::json::array();
  for (size_t i = 0; i < 3 && i < crashes_reported.size(); i++) {
    const bool fixed = i == 0 && k >= 1;
    ledger.push_back({{"signature", crashes_reported[i]},
                      {"kind", "SEGV"},
                      {"build", "b1000"},
                      {"first_night", NightName(0)},
                      {"fixed", fixed},
                      {"fixed_build", fixed ? "b1001" : ""},
                      {"fixed_night", fixed ? NightName(1) : ""}});
  }
  j["ledger"] = std::move(ledger);
  return j.dump();
}

std::string ReportMd(const Config& c, const std::string& night) {
  return "# Pollen nightly: " + c.campaign + ", night of " + night +
         "\n\n**Nothing new broke** (exit code 0)\n";
}

template <typename R>
bool Call(ControllerClient& client, const controller::Request& request, const char* what) {
  Result<R> reply = client.Call<R>(request, kTimeoutMs);
  if (!reply.ok())
    std::fprintf(stderr, "dashboard_fill: %s: %s\n", what, reply.status().message().c_str());
  return reply.ok();
}

bool Heartbeats(ControllerClient& client, const Config& c, uint64_t round) {
  for (uint64_t i = 1; i <= c.nodes; i++) {
    if (!Call<controller::HeartbeatReply>(
            client, controller::HeartbeatRequest{NodeId(i), StatsOf(i, round)}, "heartbeat")) {
      return false;
    }
  }
  return true;
}

int Run(const Config& c) {
  controller::ControllerClientOptions options;
  options.controller = c.endpoint;
  auto connected = controller::ConnectController(options);
  if (!connected.ok()) {
    std::fprintf(stderr, "dashboard_fill: %s\n", connected.status().message().c_str());
    return 1;
  }
  ControllerClient& client = *connected.value();
  uint64_t t0 = base::MonotonicMs();
  for (uint64_t i = 1; i <= c.nodes; i++) {
    controller::RegisterRequest r{NodeId(i),
                                  c.campaign,
                                  "fill_fuzzer",
                                  "0123456789abcdef",
                                  "-max_len=4096",
                                  "host-" + std::to_string(i % 40),
                                  2};
    if (!Call<controller::RegisterReply>(client, r, "register")) return 1;
  }
  if (!Heartbeats(client, c, 0)) return 1;
  std::printf("dashboard_fill: %llu nodes registered, a heartbeat each, in %llu ms\n",
              static_cast<unsigned long long>(c.nodes),
              static_cast<unsigned long long>(base::MonotonicMs() - t0));

  t0 = base::MonotonicMs();
  const std::vector<std::string> signatures = CrashSignatures(c.nodes > 0 ? c.crashes : 0);
  for (uint64_t i = 0; i < signatures.size(); i++) {
    const std::string& sig = signatures[i];
    const std::string input = "crash input " + std::to_string(i);
    controller::CrashRequest crash{
        NodeId(1 + i % c.nodes),
        sig,
        i % 3 == 0 ? "SEGV" : "heap-buffer-overflow",
        std::vector<uint8_t>(input.begin(), input.end()),
        "==1==ERROR: AddressSanitizer: simulated crash " + std::to_string(i),
        true};
    if (!Call<controller::CrashReply>(client, crash, "crash")) return 1;
  }
  std::printf("dashboard_fill: %llu crashes reported in %llu ms\n",
              static_cast<unsigned long long>(c.crashes),
              static_cast<unsigned long long>(base::MonotonicMs() - t0));

  t0 = base::MonotonicMs();
  for (uint64_t k = 0; k < c.nights; k++) {
    const std::string night = NightName(k);
    controller::PutReportRequest put{
        c.campaign,
        night,
        {{"report.json", ReportJson(c, k, night, signatures)}, {"report.md", ReportMd(c, night)}}};
    if (!Call<controller::ReportStoredReply>(client, put, "put report")) return 1;
  }
  std::printf("dashboard_fill: %llu nights of reports put in %llu ms\n",
              static_cast<unsigned long long>(c.nights),
              static_cast<unsigned long long>(base::MonotonicMs() - t0));
  std::fflush(stdout);

  const uint64_t until = base::MonotonicMs() + c.keep_alive_s * 1000;
  for (uint64_t round = 1; !stop_requested && base::MonotonicMs() < until; round++) {
    const uint64_t next = base::MonotonicMs() + 5000;
    if (!Heartbeats(client, c, round)) return 1;
    while (!stop_requested && base::MonotonicMs() < std::min(next, until))
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

}  // namespace
}  // namespace pollen::bench

int main(int argc, char** argv) {
  using namespace pollen::bench;  // NOLINT
  Config c;
  bool ok = argc >= 2 && argv[1][0] != '-';
  if (ok) c.endpoint = argv[1];
  for (int i = 2; ok && i < argc; i++) {
    std::string arg = argv[i], v;
    if (ParseFlag(arg, "campaign", &v)) {
      c.campaign = v;
    } else if (ParseFlag(arg, "nodes", &v)) {
      ok = ParseCount(v, &c.nodes);
    } else if (ParseFlag(arg, "crashes", &v)) {
      ok = ParseCount(v, &c.crashes);
    } else if (ParseFlag(arg, "nights", &v)) {
      ok = ParseCount(v, &c.nights) && c.nights <= 365;
    } else if (ParseFlag(arg, "keep-alive", &v)) {
      ok = ParseCount(v, &c.keep_alive_s);
    } else {
      ok = false;
    }
  }
  if (!ok) {
    std::fprintf(stderr,
                 "usage: dashboard_fill ENDPOINT [--campaign=NAME] [--nodes=N] [--crashes=M] "
                 "[--nights=K (at most 365)] [--keep-alive=S]\n");
    return 2;
  }
  std::signal(SIGTERM, [](int) { stop_requested = 1; });
  std::signal(SIGINT, [](int) { stop_requested = 1; });
  return Run(c);
}
