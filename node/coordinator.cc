// The coordinator's start, main loop, stop and status lines; what it asks the workers and
// what it does with their answers is in coordinator_work.cc, their deaths and timeouts in
// coordinator_failures.cc.
#include "node/coordinator.h"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "base/clock.h"
#include "base/sha1.h"
#include "node/coordinator_slot.h"
#include "node/interrupt.h"
#include "node/learned_dictionary.h"
#include "node/worker_messages.h"

namespace pollen::node {
namespace {

constexpr uint64_t kRssCheckEveryMs = 200;
// How long workers get to exit on their own at the end of a run before they are killed.
constexpr uint64_t kShutdownGraceMs = 2000;

std::string HumanBytes(uint64_t b) {
  char buf[32];
  if (b < 10 * 1024) {
    std::snprintf(buf, sizeof(buf), "%lub", static_cast<unsigned long>(b));
  } else if (b < 10 * 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%luKb", static_cast<unsigned long>(b / 1024));
  } else {
    std::snprintf(buf, sizeof(buf), "%luMb", static_cast<unsigned long>(b / (1024 * 1024)));
  }
  return buf;
}

// Finds kept as found (node/found_inputs.h): the latest thousand, 16 MiB at most.
constexpr size_t kFoundInputs = 1024;
constexpr size_t kFoundInputBytes = size_t{16} << 20;

}  // namespace

Coordinator::Coordinator(const FuzzOptions& options, WorkerLauncher* launcher, LiveCorpus* corpus,
                         storage::CorpusStore* store, std::string artifact_dir)
    : options_(options),
      launcher_(launcher),
      corpus_(corpus),
      store_(store),
      artifact_dir_(std::move(artifact_dir)),
      coverage_(launcher->coverage()),
      rng_(engine::Rng::FromSeed(options.seed)),
      replay_mutator_(launcher->options().max_len),
      length_(options.len_control, launcher->options().max_len),
      value_profile_(launcher->options().use_value_profile ? options.use_value_profile
                                                           : Setting::kOff),
      cmp_hooks_(options.mutant_cmp_hooks),
      found_(kFoundInputs, kFoundInputBytes),
      hang_cutoff_(uint64_t{options.timeout} * 1000, options.hang_cutoff_ms, WorkerCount(options)) {
  corpus_->set_speed_weight(options.speed_weight);
  corpus_->set_unit_us(uint64_t{options.unit_ms} * 1000);
  replay_mutator_.set_ascii(launcher->options().only_ascii);  // as the workers' mutators
}

Coordinator::~Coordinator() = default;

Status Coordinator::StartSlot(Slot& slot) {
  auto launched = launcher_->Launch();
  if (!launched.ok()) return launched.status();
  slot = Slot();
  slot.proc = std::move(launched).value();
  return Status::Ok();
}

uint64_t Coordinator::TotalRuns() const {
  uint64_t total = retired_runs_;
  for (const auto& s : slots_) {
    if (s->proc) total += __atomic_load_n(&s->proc->shm().header()->total_runs, __ATOMIC_RELAXED);
  }
  return total;
}

bool Coordinator::ShouldStop() const {
  if (stop_) return true;
  if (observer_ != nullptr && observer_->StopRequested()) return true;
  if (options_.time != 0 && base::MonotonicMs() - start_ms_ >= options_.time * 1000) return true;
  if (options_.runs != 0 && TotalRuns() >= options_.runs) return true;
  return false;
}

void Coordinator::ExecuteInput(std::vector<uint8_t> input, std::string origin) {
  to_execute_.push_back({std::move(input), std::move(origin)});
}

bool Coordinator::OfferEntry(std::vector<uint8_t> input, std::vector<uint32_t> features,
                             std::string origin) {
  if (corpus_->Contains(base::Sha1(input.data(), input.size()))) return false;
  if (coverage_->CountNew(features.data(), features.size()) == 0) return false;
  return AddEntry(std::move(input), features.data(), features.size(), 0, std::move(origin));
}

uint32_t Coordinator::max_len() const { return launcher_->options().max_len; }

void Coordinator::PrintStatus(const char* event) {
  uint64_t now = base::MonotonicMs();
  last_status_ms_ = now;
  double secs = std::max(0.001, static_cast<double>(now - start_ms_) / 1000.0);
  uint64_t runs = TotalRuns();
  uint64_t rss = 0;
  for (const auto& s : slots_) rss = std::max(rss, s->max_rss_mb);
  if (options_.libfuzzer_output) {
    PrintLibFuzzerStatus(event, runs, static_cast<uint64_t>(static_cast<double>(runs) / secs), rss);
    return;
  }
  spdlog::info(
      "#{}\t{}\texec/s: {}\tedges: {}\tfeatures: {}\tcorpus: {}/{}\tfailures: {}\trss: {}Mb\t{}s{}",
      runs, event, static_cast<uint64_t>(static_cast<double>(runs) / secs), coverage_->edges(),
      coverage_->features(), corpus_->size(), HumanBytes(corpus_->total_bytes()), summary_.failures,
      rss, static_cast<uint64_t>(secs), observer_ != nullptr ? observer_->StatusFields() : "");
}

// libFuzzer's "#N\tNEW    cov: ... ft: ... corp: N/SIZE exec/s: ... rss: ...Mb", which
// scripts parse. Seeds are not announced one by one (libFuzzer announces INITED), and a
// peer's input is NEW.
void Coordinator::PrintLibFuzzerStatus(const char* event, uint64_t runs, uint64_t per_second,
                                       uint64_t rss) {
  std::string name = event;
  if (name == "SEED") return;
  if (name == "PEER") name = "NEW";
  name.resize(std::max<size_t>(name.size(), 6), ' ');
  std::fprintf(stderr, "#%lu\t%s cov: %zu ft: %zu corp: %zu/%s exec/s: %lu rss: %luMb\n",
               static_cast<unsigned long>(runs), name.c_str(), coverage_->edges(),
               coverage_->features(), corpus_->size(), HumanBytes(corpus_->total_bytes()).c_str(),
               static_cast<unsigned long>(per_second), static_cast<unsigned long>(rss));
}

Result<FuzzSummary> Coordinator::Run(std::vector<StartupInput> startup,
                                     std::vector<std::vector<uint32_t>> known_features) {
  start_ms_ = base::MonotonicMs();
  hang_cutoff_.Start(start_ms_);
  const std::string learned_path = LearnedDictionaryPath(options_.workdir);
  Status learned = LoadLearnedDictionary(learned_path, &learned_);
  if (!learned.ok()) spdlog::warn("ignoring the learned dictionary: {}", learned.message());
  for (auto& s : startup) {
    to_execute_.push_back({std::move(s.data), "", options_.keep_seed && s.own});
  }
  if (to_execute_.empty() && corpus_->size() == 0) to_execute_.push_back({});  // the empty input

  const uint32_t workers = WorkerCount(options_);
  for (uint32_t i = 0; i < workers; i++) {
    auto slot = std::make_unique<Slot>();
    Status st = StartSlot(*slot);
    if (!st.ok()) return st;
    slots_.push_back(std::move(slot));
  }
  // The map has its size once a worker said hello: restored entries' coverage goes in now.
  for (const auto& f : known_features) coverage_->Add(f.data(), f.size());
  const HelloInfo& hello = launcher_->hello();
  spdlog::info(
      "{} workers; {} coverage counters in {} modules, {} pcs; seed {}; {} inputs to run first, "
      "{} corpus entries restored",
      workers, hello.num_counters, hello.num_modules, hello.num_pcs, options_.seed,
      to_execute_.size(), corpus_->size());
  if (observer_ != nullptr) observer_->OnStart(*this);

  uint64_t last_rss_ms = 0;
  std::vector<pollfd> fds;
  engine::FrameWords words;
  while (!ShouldStop()) {
    for (auto& s : slots_) Dispatch(*s);
    fds.clear();
    fds.push_back({InterruptFd(), POLLIN, 0});
    for (auto& s : slots_) {
      if (!s->proc) continue;
      fds.push_back({s->proc->control_fd(), POLLIN, 0});
      fds.push_back({s->proc->stderr_fd(), POLLIN, 0});
    }
    poll(fds.data(), fds.size(), 50);
    if (Interrupted()) {
      summary_.interrupted = true;
      break;
    }
    for (auto& s : slots_) {
      if (!s->proc) continue;
      s->proc->DrainStderr();
      bool dead = false;
      while (!dead && s->proc) {
        auto r = s->proc->TryReceive(&words);
        if (r == WorkerProcess::Receive::kMessage) {
          HandleMessage(*s, words);
        } else if (r == WorkerProcess::Receive::kClosed || r == WorkerProcess::Receive::kError) {
          dead = true;
        } else {
          break;
        }
      }
      if (dead) HandleDeath(*s);
      if (stop_) break;
    }
    uint64_t now = base::MonotonicMs();
    for (auto& s : slots_) Watch(*s, now);
    if (now - last_rss_ms >= kRssCheckEveryMs) {
      last_rss_ms = now;
      for (auto& s : slots_) {
        if (!s->proc) continue;
        uint64_t rss = s->proc->RssMb();
        s->max_rss_mb = std::max(s->max_rss_mb, rss);
        if (options_.rss_limit_mb != 0 && rss > options_.rss_limit_mb && !s->killed_for_oom) {
          s->killed_for_oom = true;
          s->oom_rss_mb = rss;
          s->proc->Kill();
        }
      }
    }
    if (observer_ != nullptr) observer_->OnTurn(*this);
    if (baseline_done_ && now - last_status_ms_ >= options_.status_every * 1000ULL)
      PrintStatus("pulse");
  }
  summary_.stopped = !summary_.interrupted && observer_ != nullptr && observer_->StopRequested();
  if (observer_ != nullptr) observer_->OnStop(*this);

  // Shut down: ask politely, then make sure. At the end of its time or runs, a worker gets
  // to end its request and exit on its own (a tool around the process, valgrind's callgrind
  // for one, then writes what it measured); after Ctrl-C or SIGTERM it is killed at once.
  for (auto& s : slots_) {
    if (!s->proc) continue;
    (void)SendShutdown(*s->proc);
  }
  const uint64_t grace_end_ms = base::MonotonicMs() + (summary_.interrupted ? 0 : kShutdownGraceMs);
  for (auto& s : slots_) {
    if (!s->proc) continue;
    const uint64_t now_ms = base::MonotonicMs();
    (void)s->proc->WaitExitFor(static_cast<int>(grace_end_ms > now_ms ? grace_end_ms - now_ms : 0));
    s->proc->Kill();  // its process group: whatever the target started
    s->proc->WaitExit();
    retired_runs_ += s->proc->shm().header()->total_runs;
    learned_.Merge(s->proc->shm().header()->learned);
    s->proc.reset();
  }
  Status flushed = corpus_->Flush();
  if (!flushed.ok()) spdlog::error("flushing the corpus: {}", flushed.message());

  summary_.executions = retired_runs_;
  if (learned_.count > 0) {
    summary_.learned_dictionary = learned_.Format(true);
    Status saved = SaveLearnedDictionary(learned_path, learned_);
    if (!saved.ok()) spdlog::warn("cannot keep the learned dictionary: {}", saved.message());
  }
  spdlog::info(
      "baseline {} ms; fuzz units: {} runs in {} ms, {} ended on their time limit; "
      "minimizing {} new inputs ({} with the value profile): {} runs in {} ms, {} "
      "minimizations cut by time; "
      "{} new inputs kept unminimized (over the budget); {} finds kept as found for "
      "crossover ({} in the pool at the end, {}), the partner of {} fuzz units; "
      "{} entries reduced; "
      "input-to-state stages: {} runs, {} finds; {} worker restarts for drift; "
      "value profile on for {} s ({} times turned on); {} of {} fuzz units' mutants without "
      "comparison hooks; {} executions stopped at the hang cutoff ({} stacks), {} s of "
      "executions stopped at a time limit",
      baseline_ms_, fuzz_runs_, fuzz_us_ / 1000, units_on_time_, minimize_requests_,
      minimize_with_profile_, minimize_runs_, minimize_us_ / 1000, minimize_time_cuts_,
      unminimized_, found_kept_, found_.size(), HumanBytes(found_.bytes()), found_partners_,
      summary_.reductions, stage_runs_, stage_finds_, drift_restarts_,
      value_profile_.active_ms() / 1000, value_profile_.times_on(), cmp_hooks_.units_off(),
      cmp_hooks_.units(), hang_stops_, hang_counts_.size(), hang_cutoff_.stopped_ms() / 1000);
  summary_.seconds = static_cast<double>(base::MonotonicMs() - start_ms_) / 1000.0;
  summary_.edges = coverage_->edges();
  summary_.features = coverage_->features();
  summary_.corpus_entries = corpus_->size();
  summary_.corpus_bytes = corpus_->total_bytes();
  if (summary_.exit_code == 0 && !summary_.stopped) {
    if (summary_.failures > 0) {
      summary_.exit_code = 1;
    } else if (summary_.interrupted) {
      summary_.exit_code = Terminated() ? 0 : 130;
    }
  }
  return summary_;
}

}  // namespace pollen::node
