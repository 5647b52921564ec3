#include "node/build_follower.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "base/clock.h"
#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "node/single_run.h"
#include "transfer/directory_records.h"

namespace pollen::node {
namespace {

namespace fs = std::filesystem;

}  // namespace

void BuildFollower::Note(const std::string& why) {
  if (why == last_note_) return;
  last_note_ = why;
  spdlog::info("follow builds: {}", why);
}

bool BuildFollower::WaitRetry() {
  const uint64_t until = base::MonotonicMs() + o_.retry_ms;
  while (base::MonotonicMs() < until) {
    if (o_.should_stop && o_.should_stop()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return !(o_.should_stop && o_.should_stop());
}

Result<std::string> BuildFollower::AssignedBuild() {
  if (client_ == nullptr) {
    Result<std::unique_ptr<controller::ControllerClient>> client =
        controller::ConnectController(o_.client);
    if (!client.ok()) return client.status();
    client_ = std::move(client).value();
  }
  Result<controller::CampaignsReply> list = client_->Call<controller::CampaignsReply>(
      controller::ListCampaignsRequest{}, o_.request_timeout_ms);
  if (!list.ok()) {
    client_.reset();  // a new connection next time
    return list.status();
  }
  for (const controller::CampaignSummary& c : list->campaigns) {
    if (c.name == o_.campaign) return c.assigned_build;
  }
  return std::string();
}

Result<FollowedBuild> BuildFollower::Pull(const std::string& expected) {
  const fs::path incoming = fs::path(o_.dir) / "incoming";
  std::error_code ec;
  fs::remove_all(incoming, ec);
  fs::create_directories(incoming, ec);
  if (ec) return Status::Error("cannot create " + incoming.string() + ": " + ec.message());
  transfer::DirectorySinkOptions sink_options;
  sink_options.sync = false;  // checked against its id below, and pulled again if lost
  Result<std::unique_ptr<transfer::DirectorySink>> sink =
      transfer::DirectorySink::Open(incoming.string(), sink_options);
  if (!sink.ok()) return sink.status();
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = o_.request_timeout_ms;
  stream.should_stop = o_.should_stop;
  Result<transfer::TransferCounters> pulled = controller::PullStream(
      o_.client, controller::BuildResource(o_.campaign), "", sink->get(), nullptr, stream);
  if (!pulled.ok()) return pulled.status();
  if (Status flushed = (*sink)->Flush(); !flushed.ok()) return flushed;
  fs::path file;
  for (fs::directory_iterator it(incoming, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string()[0] != '.') file = it->path();
  }
  if (file.empty()) return Status::Error("the controller sent no build");
  Result<std::string> id = BuildIdOf(file.string());
  if (!id.ok()) return id.status();
  // Assigned again between the ask and the pull: the pulled one is newer, and as good.
  if (*id != expected) spdlog::info("follow builds: pulled build {} (asked for {})", *id, expected);
  const fs::path dir = fs::path(o_.dir) / *id;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create " + dir.string() + ": " + ec.message());
  const fs::path path = dir / file.filename();
  fs::rename(file, path, ec);
  if (ec) return Status::Error("cannot move the build to " + path.string() + ": " + ec.message());
  if (::chmod(path.c_str(), 0755) != 0) {
    return Status::Error("cannot make " + path.string() + " executable");
  }
  fs::remove_all(incoming, ec);
  return FollowedBuild{*id, path.string()};
}

Result<std::optional<FollowedBuild>> BuildFollower::Next() {
  for (;;) {
    if (o_.should_stop && o_.should_stop()) return std::optional<FollowedBuild>();
    Result<std::string> assigned = AssignedBuild();
    if (!assigned.ok()) {
      Note("the controller at " + o_.client.controller + " cannot say which build to fuzz (" +
           assigned.status().message() + "); asking again every " +
           std::to_string(o_.retry_ms / 1000) + " s");
    } else if (assigned->empty()) {
      Note("campaign " + o_.campaign +
           " has no assigned build yet (`pollen nightly` with "
           "nodes: cluster, or `pollen build push`, assigns one); waiting");
    } else {
      Result<FollowedBuild> build = Pull(*assigned);
      if (build.ok()) {
        // Only the build fuzzed now stays.
        std::error_code ec;
        for (fs::directory_iterator it(o_.dir, ec), end; !ec && it != end; it.increment(ec)) {
          if (it->path().filename() != build->build_id) {
            std::error_code ignored;
            fs::remove_all(it->path(), ignored);
          }
        }
        last_note_.clear();
        return std::optional<FollowedBuild>(std::move(build).value());
      }
      Note("cannot pull build " + *assigned + " of campaign " + o_.campaign + ": " +
           build.status().message());
    }
    if (!WaitRetry()) return std::optional<FollowedBuild>();
  }
}

}  // namespace pollen::node
