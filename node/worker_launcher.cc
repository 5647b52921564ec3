#include "node/worker_launcher.h"

#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "base/clock.h"
#include "engine/value_profile.h"
#include "node/worker_messages.h"

namespace pollen::node {
namespace {}  // namespace

Status CheckTargetFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return Status::Error("target " + path + " does not exist");
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    return Status::Error("target " + path + " is not an executable file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read target " + path + ": " + std::strerror(errno));
  // Looks for the runtime's marker string, in chunks that overlap by the marker's length.
  static const std::string kMarker = std::string("POLLEN_RUNTIME_") + "MARKER_V1";
  std::string window;
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    std::streamsize got = in.gcount();
    if (got <= 0) break;
    window.append(chunk.data(), static_cast<size_t>(got));
    if (window.find(kMarker) != std::string::npos) return Status::Ok();
    if (window.size() > kMarker.size()) window.erase(0, window.size() - kMarker.size());
  }
  return Status::Error("target " + path +
                       " is not a Pollen target: build the harness with "
                       "`pollen config --cflags --ldflags` (libpollen_fuzzer.a) "
                       "(see docs/targets.md)");
}

WorkerLauncher::WorkerLauncher(LaunchOptions options, GlobalCoverage* coverage)
    : options_(std::move(options)), coverage_(coverage) {}

Result<std::unique_ptr<WorkerProcess>> WorkerLauncher::Launch(
    std::optional<Failure>* startup_failure) {
  WorkerSpawnOptions spawn;
  spawn.target = options_.target;
  spawn.args = options_.target_args;
  spawn.max_input = options_.max_len;
  spawn.coverage_fd = coverage_->fd();
  spawn.value_profile = options_.use_value_profile;
  spawn.malloc_limit_mb = options_.malloc_limit_mb;
  auto started = WorkerProcess::Start(spawn);
  if (!started.ok()) return started.status();
  std::unique_ptr<WorkerProcess> worker = std::move(started).value();

  engine::FrameWords words;
  auto r = worker->WaitReceive(&words, static_cast<int>(options_.startup_timeout_s * 1000));
  if (r == WorkerProcess::Receive::kNone) {
    return Status::Error("target " + options_.target + " did not start in worker mode within " +
                         std::to_string(options_.startup_timeout_s) + " s");
  }
  if (r != WorkerProcess::Receive::kMessage) {
    DeathContext death;
    death.wait_status = worker->WaitExit();
    death.stderr_text = worker->stderr_text();
    Failure f = ClassifyFailure(death);
    if (startup_failure) *startup_failure = f;
    return Status::Error("target " + options_.target + " failed during start-up (" + f.summary +
                         ")\n" + f.report);
  }
  Result<FromWorker> msg = DecodeFromWorker(words);
  if (!msg.ok()) {
    return Status::Error("target " + options_.target + " sent " + msg.status().message());
  }
  const auto* hello = std::get_if<WorkerHello>(&*msg);
  if (hello == nullptr) {
    return Status::Error("target " + options_.target + " sent something else than a hello");
  }
  Status built = CheckHelloBuild(*hello, options_.target);
  if (!built.ok()) return built;
  hello_.num_counters = hello->num_counters;
  hello_.num_pcs = hello->num_pcs;
  hello_.num_modules = hello->num_modules;
  hello_.value_profile_first = hello->value_profile_first;
  hello_.value_profile_counters = hello->value_profile_counters;
  if (hello_.num_counters <= hello_.value_profile_counters) {  // the profile's are not code's
    return Status::Error("target " + options_.target +
                         " has no coverage counters: compile the harness (and the code under test) "
                         "with -fsanitize=fuzzer-no-link");
  }
  if (hello_.num_counters > coverage_->capacity()) {
    return Status::Error("target has " + std::to_string(hello_.num_counters) +
                         " coverage counters, more than pollen's map holds");
  }
  if (coverage_->num_counters() == 0) {
    coverage_->SetNumCounters(hello_.num_counters);
    if (hello_.value_profile_counters != 0 &&
        hello_.value_profile_first + hello_.value_profile_counters <= hello_.num_counters) {
      coverage_->SetLadders(
          static_cast<uint32_t>(hello_.value_profile_first),
          static_cast<uint32_t>(hello_.value_profile_counters / engine::ValueProfile::kLevels),
          static_cast<uint32_t>(engine::ValueProfile::kLevels));
    }
  }

  Status sent =
      SendConfigure(*worker, options_.max_len, options_.dictionary.entries, options_.only_ascii);
  if (!sent.ok()) return Status::Error("cannot configure worker: " + sent.message());
  return worker;
}

Result<RunOutcome> RunInput(WorkerProcess& worker, const LaunchOptions& options,
                            const uint8_t* data, size_t size) {
  engine::WorkerShmHeader* h = worker.shm().header();
  if (size > h->max_input) size = h->max_input;
  if (size > 0) std::memcpy(worker.shm().raw(), data, size);  // data may be null when empty
  h->raw_size = static_cast<uint32_t>(size);
  worker.ClearStderr();

  Status sent = SendExecute(worker);

  RunOutcome outcome;
  DeathContext death;
  death.timeout_s = options.timeout_s;
  death.rss_limit_mb = options.rss_limit_mb;
  engine::FrameWords words;
  uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(options.timeout_s) * 1000;
  bool died = !sent.ok();
  while (!died) {
    auto r = worker.WaitReceive(&words, 100);
    if (r == WorkerProcess::Receive::kMessage) {
      Result<FromWorker> msg = DecodeFromWorker(words);
      if (!msg.ok()) return Status::Error("worker sent " + msg.status().message());
      const auto* executed = std::get_if<Executed>(&*msg);
      if (executed == nullptr) {
        return Status::Error("worker answered an execute request with another message");
      }
      uint32_t n = std::min(executed->feature_count, h->max_features);
      outcome.features.assign(worker.shm().features(), worker.shm().features() + n);
      outcome.exec_time_us = executed->exec_time_us;
      return outcome;
    }
    if (r == WorkerProcess::Receive::kClosed || r == WorkerProcess::Receive::kError) break;
    uint64_t rss = worker.RssMb();
    if (options.rss_limit_mb != 0 && rss > options.rss_limit_mb) {
      death.killed_for_oom = true;
      death.rss_mb = rss;
      worker.Kill();
      break;
    }
    if (base::MonotonicMs() > deadline) {
      death.killed_for_timeout = true;
      kill(worker.pid(), SIGUSR1);  // the runtime prints the stuck stack and exits
      uint64_t grace = base::MonotonicMs() + 2000;
      while (base::MonotonicMs() < grace &&
             worker.WaitReceive(&words, 100) == WorkerProcess::Receive::kNone) {
      }
      worker.Kill();
      break;
    }
  }
  death.wait_status = worker.WaitExit();
  death.stderr_text = worker.stderr_text();
  death.exit_in_target = h->exit_in_target != 0;
  outcome.failed = true;
  outcome.failure = ClassifyFailure(death);
  return outcome;
}

}  // namespace pollen::node
