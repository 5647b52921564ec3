#include "nightly/cluster_fuzz.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "base/clock.h"
#include "controller/client/stream_client.h"
#include "transfer/directory_records.h"

namespace pollen::nightly {
namespace {

namespace fs = std::filesystem;

controller::StreamClientOptions StreamOptions(const ClusterFuzzOptions& o) {
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = o.request_timeout_ms;
  stream.should_stop = o.should_stop;
  return stream;
}

// Pushes the files of `dir` into the campaign's pushed inputs (resumable by `what`).
Status PushInputs(const ClusterFuzzOptions& o, const std::string& dir, const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::Ok();
  Result<controller::PushResult> pushed = controller::PushStream(
      o.client, {o.campaign, ""},
      controller::PushIdFor("nightly:" + o.campaign + ":" + o.night + ":" + what),
      [&](const std::string& resume_after) -> Result<std::unique_ptr<transfer::RecordSource>> {
        Result<std::unique_ptr<transfer::DirectorySource>> source =
            transfer::DirectorySource::Open(dir, resume_after, o.client.limits.stream);
        if (!source.ok()) return source.status();
        return std::unique_ptr<transfer::RecordSource>(std::move(source).value());
      },
      nullptr, StreamOptions(o));
  if (!pushed.ok()) return pushed.status();
  spdlog::info("fuzz: {} inputs of {} pushed to the cluster's nodes", pushed->counters.records,
               what);
  return Status::Ok();
}

}  // namespace

Result<bool> FuzzOnCluster(const ClusterFuzzOptions& o, FuzzStep* fuzz) {
  if (fuzz->elapsed_s == 0) {
    // Pushed again on resume: the same bytes are the same build, assigned once more.
    Result<std::string> id =
        controller::PushBuildStream(o.client, o.campaign, o.target, o.fuzz_build, StreamOptions(o));
    if (!id.ok()) return id.status();
    spdlog::info("fuzz: build {} assigned to the nodes following campaign {}", *id, o.campaign);
    // The nodes of the new build run what earlier builds found, and the seeds.
    for (size_t i = 0; i < o.input_dirs.size(); i++) {
      if (Status st = PushInputs(o, o.input_dirs[i], "inputs" + std::to_string(i)); !st.ok()) {
        return st;
      }
    }
    fuzz->runs++;
  }
  spdlog::info("fuzz: the cluster's nodes fuzz build {} for {} s", o.build_id,
               o.budget_s - std::min(o.budget_s, fuzz->elapsed_s));
  uint64_t last_save = base::MonotonicMs();
  uint64_t last_tick = last_save;
  while (fuzz->elapsed_s < o.budget_s) {
    if (o.should_stop && o.should_stop()) {
      Status saved = o.save();
      if (!saved.ok()) return saved;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const uint64_t now = base::MonotonicMs();
    if (now - last_tick >= 1000) {
      fuzz->elapsed_s += (now - last_tick) / 1000;
      last_tick += (now - last_tick) / 1000 * 1000;
    }
    if (now - last_save >= 5000) {  // a killed night resumes with what is left
      last_save = now;
      (void)o.save();
    }
  }
  fuzz->elapsed_s = std::min(o.budget_s, fuzz->elapsed_s);
  return true;
}

Status CountClusterNodes(controller::ControllerClient& client, const ClusterFuzzOptions& o,
                         FuzzStep* fuzz) {
  Result<controller::StatusReply> status = client.Call<controller::StatusReply>(
      controller::StatusRequest{o.campaign}, o.request_timeout_ms);
  if (!status.ok()) return status.status();
  fuzz->nodes_started = 0;
  fuzz->nodes_died = 0;
  fuzz->node_failures.clear();
  for (const controller::NodeStatus& n : status->nodes) {
    if (n.build_id != o.build_id) continue;
    fuzz->nodes_started++;
    if (n.state == controller::NodeState::kLost) {
      fuzz->nodes_died++;
      fuzz->node_failures.push_back("node " + n.node_id + ": lost by the controller (no " +
                                    "heartbeat for " +
                                    std::to_string(n.last_heartbeat_age_ms / 1000) + " s)");
    }
  }
  return Status::Ok();
}

}  // namespace pollen::nightly
