#include "nightly/node_fleet.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/clock.h"

namespace pollen::nightly {
namespace {

constexpr uint64_t kGraceMs = 60'000;
constexpr uint64_t kStopWaitMs = 30'000;

bool CommandLineHolds(int pid, const std::string& needle) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().find(needle) != std::string::npos;
}

}  // namespace

Result<FleetRun> RunFleet(const FleetOptions& options,
                          const std::function<void(const std::vector<int>&)>& started) {
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) return Status::Error("cannot create " + options.dir + ": " + ec.message());
  std::vector<ChildProcess> children;
  std::vector<int> pids;
  FleetRun run;
  for (uint32_t k = 0; k < options.nodes; k++) {
    const std::string id = std::to_string(k);
    ChildSpec spec;
    spec.argv = {options.pollen_bin, "node"};
    spec.argv.insert(spec.argv.end(), options.node_args.begin(), options.node_args.end());
    spec.argv.push_back("--node-id=" + options.node_id_prefix + id);
    spec.argv.push_back("--workdir=" + options.dir + "/" + id);
    spec.argv.push_back("--time=" + std::to_string(options.seconds));
    spec.output_path = options.dir + "/" + id + ".log";
    Result<ChildProcess> child = ChildProcess::Start(spec);
    if (!child.ok()) return child.status();  // the others are killed by their destructors
    pids.push_back(child->pid());
    run.ends.push_back({k, {}, spec.output_path});
    children.push_back(std::move(child).value());
  }
  if (started) started(pids);

  const uint64_t start = base::MonotonicMs();
  const uint64_t deadline = start + options.seconds * 1000 + kGraceMs;
  uint64_t stop_sent_ms = 0;
  size_t running = children.size();
  while (running > 0) {
    running = 0;
    for (size_t i = 0; i < children.size(); i++) {
      if (auto exit = children[i].Poll()) {
        run.ends[i].exit = *exit;
      } else {
        running++;
      }
    }
    if (running == 0) break;
    const uint64_t now = base::MonotonicMs();
    const bool stop = options.tick && options.tick((now - start) / 1000);
    if ((stop || now >= deadline) && stop_sent_ms == 0) {
      run.stopped = stop;
      for (ChildProcess& c : children) c.Signal(SIGTERM);
      stop_sent_ms = now;
    }
    if (stop_sent_ms != 0 && now >= stop_sent_ms + kStopWaitMs) {
      for (size_t i = 0; i < children.size(); i++) {
        if (!children[i].Poll()) {
          run.ends[i].exit = children[i].Wait(0);  // SIGKILL, reaped
        }
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // polling the nodes' exits
  }
  run.elapsed_s = (base::MonotonicMs() - start) / 1000;
  return run;
}

void StopLeftoverNodes(const std::vector<int>& pids, const std::string& node_id_prefix) {
  std::vector<int> alive;
  for (int pid : pids) {
    if (pid > 0 && CommandLineHolds(pid, node_id_prefix)) {
      kill(-pid, SIGTERM);
      alive.push_back(pid);
    }
  }
  const uint64_t deadline = base::MonotonicMs() + kStopWaitMs;
  for (int pid : alive) {
    // Not our children (a killed nightly started them): wait for /proc to forget them.
    while (CommandLineHolds(pid, node_id_prefix) && base::MonotonicMs() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polling another's exit
    }
    if (CommandLineHolds(pid, node_id_prefix)) kill(-pid, SIGKILL);
  }
}

}  // namespace pollen::nightly
