#include "engine/runtime/worker.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/clock.h"
#include "engine/coverage.h"
#include "engine/i2s_stage.h"
#include "engine/minimizer.h"
#include "engine/mutator.h"
#include "engine/rng.h"
#include "engine/runtime/coarse_clock.h"
#include "engine/runtime/custom_mutator.h"
#include "engine/runtime/sancov_state.h"

namespace pollen::runtime {
namespace {

constexpr size_t kMaxFrameWords = 16 * 1024 * 1024;  // 128 MiB: a large dictionary at most
// A fuzz unit lasts at least this many times its entry's own run, and is stretched so for at
// most kMaxUnitStretchMs (HandleFuzz).
constexpr uint64_t kUnitPerEntryRun = 4;
constexpr uint64_t kMaxUnitStretchMs = 500;

// Stores a field the coordinator may read after this process dies: the compiler must not
// delay or drop it across the harness call.
template <typename T>
inline void Publish(T* field, T value) {
  __atomic_store_n(field, value, __ATOMIC_RELAXED);
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

constinit HookSites g_hook_sites{};

[[noreturn]] void Fatal(const char* what) {
  std::fprintf(stderr, "==%d== ERROR: pollen worker: %s\n", static_cast<int>(getpid()), what);
  _exit(70);
}

}  // namespace

Worker::Worker(TestOneInputFn test_one_input, int ctl_in, int ctl_out, engine::WorkerShmView shm,
               const uint8_t* global_map, uint64_t global_capacity)
    : test_one_input_(test_one_input),
      ctl_in_(ctl_in),
      ctl_out_(ctl_out),
      shm_(shm),
      global_map_(global_map),
      global_capacity_(global_capacity),
      decoder_(kMaxFrameWords),
      hook_sites_(g_hook_sites) {
  features_.resize(shm.header()->max_features);
}

void Worker::SetPhase(engine::WorkerPhase phase) {
  Publish(&shm_.header()->phase, static_cast<uint32_t>(phase));
}

void Worker::CountRun() {
  request_runs_++;
  Publish(&shm_.header()->runs, request_runs_);
  Publish(&shm_.header()->total_runs, shm_.header()->total_runs + 1);
}

bool Worker::RunOne(const uint8_t* data, size_t size) {
  SancovState& s = GetSancovState();
  // The input sits at the very end of exec_buffer_, so a read past its end leaves the
  // allocation and a sanitizer reports it, as with libFuzzer's per-run heap copy, but
  // without allocating on every execution.
  uint8_t* input = exec_buffer_.data() + exec_buffer_.size() - size;
  if (size > 0) std::memmove(input, data, size);
  Publish(&shm_.header()->in_target, 1u);
  s.in_target = true;
  const int result = test_one_input_(input, size);
  s.in_target = false;
  Publish(&shm_.header()->in_target, 0u);

  bool any_new = false;
  size_t written = 0;
  for (size_t m = 0; m < s.num_modules; m++) {
    const CounterModule& mod = s.modules[m];
    if (mod.start == s.value_profile_counters) {
      if (s.value_profile != nullptr) {
        s.value_profile->Collect(mod.base, global_map_, features_.data(), features_.size(),
                                 &written, &any_new);
      }
      continue;
    }
    size_t count = 0;
    size_t room = features_.size() - written;
    engine::ScanAndClearCounters(mod.start, static_cast<size_t>(mod.stop - mod.start), mod.base,
                                 global_map_, features_.data() + written, room, &count, &any_new);
    written += std::min(count, room);
  }
  // libFuzzer's contract: a harness that returns -1 rejects its input whatever it covered
  // (the counters are cleared all the same). It never joins the corpus, nor reduces an
  // entry, nor is a new feature to minimize.
  if (result == -1) {
    feature_count_ = 0;
    return false;
  }
  feature_count_ = written;
  return any_new;
}

bool Worker::RunPublished(const uint8_t* data, size_t size) {
  engine::WorkerShmHeader* h = shm_.header();
  std::memcpy(shm_.raw(), data, size);
  Publish(&h->raw_size, static_cast<uint32_t>(size));
  Publish(&h->raw_in_mem, 1u);
  bool fresh = RunOne(data, size);
  CountRun();
  Publish(&h->raw_in_mem, 0u);
  return fresh;
}

bool Worker::HasOwnedFeatures() const {
  // Features come out of the scan sorted by counter index. An entry owns a few features
  // and an execution has thousands: one binary search each.
  if (feature_count_ < owned_.size()) return false;
  auto begin = features_.begin();
  auto end = features_.begin() + static_cast<ptrdiff_t>(feature_count_);
  for (uint32_t f : owned_) {
    begin = std::lower_bound(begin, end, f);
    if (begin == end || *begin != f) return false;
  }
  return true;
}

uint32_t Worker::PublishFeatures() {
  uint32_t n = static_cast<uint32_t>(std::min<size_t>(feature_count_, shm_.header()->max_features));
  std::memcpy(shm_.features(), features_.data(), n * sizeof(uint32_t));
  Publish(&shm_.header()->feature_count, n);
  return n;
}

bool Worker::Send(capnp::MessageBuilder& message) {
  return engine::WriteFrame(ctl_out_, message).ok();
}

void Worker::HandleConfigure(schema::WorkerConfig::Reader config) {
  max_len_ = std::max<uint32_t>(1, std::min(config.getMaxLen(), shm_.header()->max_input));
  dictionary_.entries.clear();
  for (auto entry : config.getDictionary()) {
    dictionary_.entries.emplace_back(reinterpret_cast<const char*>(entry.begin()), entry.size());
  }
  mutator_ = std::make_unique<engine::Mutator>(max_len_);
  custom_mutator_ = HasCustomMutator();
  mutator_->set_ascii(config.getOnlyAscii());
  mutation_buffer_.assign(max_len_, 0);
  exec_buffer_.assign(std::max<uint32_t>(max_len_, shm_.header()->max_input), 0);
}

void Worker::HandleFuzz(schema::FuzzRequest::Reader request) {
  engine::WorkerShmHeader* h = shm_.header();
  request_runs_ = 0;
  Publish(&h->runs, uint64_t{0});
  if (hooks_stuck_) {
    // The hooks could not be turned back on: no run blind to comparisons, only the answer
    // that makes the coordinator start a new process.
    capnp::MallocMessageBuilder message;
    auto result = message.initRoot<schema::FromWorker>().initFuzzDone();
    result.setHooksOff(true);
    result.setHooksStuck(true);
    if (!Send(message)) _exit(0);
    return;
  }
  Publish(&h->raw_in_mem, 0u);
  SetPhase(engine::WorkerPhase::kFuzz);

  const size_t entry_size = std::min<size_t>(h->entry_size, h->max_input);
  // Read before the first run: the feature area is this request's results afterwards.
  owned_.assign(shm_.features(),
                shm_.features() + std::min(request.getOwnedCount(), h->max_features));
  std::sort(owned_.begin(), owned_.end());
  mutator_->set_limit(engine::MutationLimit(h->mutation_len, entry_size, max_len_));
  const engine::MutationSources sources = shm_.ChainSources(&dictionary_);

  engine::Rng rng(request.getRngState(), request.getRngInc());
  const uint64_t max_runs = request.getMaxRuns() == 0 ? UINT64_MAX : request.getMaxRuns();
  uint64_t deadline = CoarseNowMs() + request.getDurationMs();
  SancovState& s = GetSancovState();
  uint8_t* buf = mutation_buffer_.data();
  size_t size = 0;
  uint32_t chain = 0;
  bool found = false;
  bool reduced = false;
  chain_words_ = 0;

  // First the entry itself, unmutated: its comparisons are the operands input-to-state
  // needs (RedQueen's insight: the bytes to replace are the entry's, not those of some
  // earlier mutant). Published as a chain of length 0, so a crash here is rebuilt too.
  // The snapshot then stays fixed for the whole request: one copy per 100 ms, not per chain.
  // Its comparison sites are logged too, to learn its gates (gates.h).
  size = engine::BeginChain(*mutator_, shm_.entry(), entry_size, buf);
  h->chain_rng_state = rng.state();
  h->chain_rng_inc = rng.inc();
  Publish(&h->chain_length, 0u);
  s.sites.Clear();
  s.sites.mode = engine::CmpSiteLog::kLearn;
  s.log_routines = true;
  s.hook_sites = hook_sites_.usable() ? &hook_sites_ : nullptr;
  // The stage and the gate fixes write what a comparison needs, text or not: not with
  // --only-ascii, whose inputs must all be text.
  const bool stage = request.getStage() && !mutator_->ascii();
  if (stage) {
    cmp_log_->Clear();
    entry_seq_->Clear();
    s.cmp_log = cmp_log_.get();
    s.cmp_seq = entry_seq_.get();
  }
  // The section by site then holds this entry's comparisons only (the window and the one-byte
  // section keep earlier ones too, as they always have).
  s.cmp.ClearSites();
  const uint64_t entry_start_us = base::MonotonicUs();
  found = RunOne(buf, size);
  // The entry's own run is overhead for the unit: one slower than the unit's time would
  // leave room for a single mutant (libsndfile's entries take up to 200 ms where a unit is
  // meant to take 5). Such a unit lasts at least kUnitPerEntryRun times the entry's run, up
  // to kMaxUnitStretchMs; the scheduler weighs entries by the time their units take.
  // Entries faster than the unit keep its time (stretched, sqlite3's 1-5 ms entries took
  // more of the time).
  const uint64_t entry_ms = (base::MonotonicUs() - entry_start_us) / 1000;
  if (entry_ms >= request.getDurationMs()) {
    deadline = std::max(deadline,
                        CoarseNowMs() + std::min(kUnitPerEntryRun * entry_ms, kMaxUnitStretchMs));
  }
  s.cmp_log = nullptr;
  s.cmp_seq = nullptr;
  if (stage)
    entry_features_.assign(features_.begin(),
                           features_.begin() + static_cast<ptrdiff_t>(feature_count_));
  s.log_routines = false;
  s.hook_sites = nullptr;
  CountRun();
  const uint32_t entry_features = static_cast<uint32_t>(feature_count_);
  std::memcpy(&h->cmp_snapshot, &s.cmp, sizeof(s.cmp));
  s.sites.mode = engine::CmpSiteLog::kOff;
  engine::FindLengthFields(s.sites, buf, size, &h->length_fields);
  if (gates_.Learn(s.sites, buf, size) > 0) s.sites.mode = engine::CmpSiteLog::kWatch;

  capnp::MallocMessageBuilder message;
  auto result = message.initRoot<schema::FromWorker>().initFuzzDone();
  bool stage_found = false;
  if (stage && !found) {
    stage_found =
        RunStage(request.getStageFrom(), entry_size, max_runs, deadline, buf, &size, result);
    found = stage_found;
  }
  // A stage that used up the request leaves no room for mutants; without one, at least one
  // mutant runs, as always.
  const bool out_of_time = stage && (request_runs_ >= max_runs || CoarseNowMs() >= deadline);
  // Mutants without comparison hooks, when the coordinator allows it and neither the stage
  // nor the value profile reads their comparisons. Gates are not watched then: most gates
  // learned are never confirmed (on re2 they kept two requests in three hooked), and the
  // coordinator's share (node/cmp_hook_switch.h) shrinks where the fixes are what finds.
  if (h->mutant_hooks_off != 0 && !stage && s.value_profile == nullptr && !out_of_time && !found)
    hook_sites_.SetOff(true);
  const bool hooks_off = hook_sites_.off();
  if (hooks_off) s.sites.mode = engine::CmpSiteLog::kOff;
  const bool watch_gates = gates_.count() > 0 && !hooks_off;
  while (!found && !out_of_time) {
    if (chain % engine::kChainLength == 0) {
      // A new chain: back to the entry, and publish what a replay needs (ReplayChain
      // starts the same way, with BeginChain).
      size = engine::BeginChain(*mutator_, shm_.entry(), entry_size, buf);
      chain = 0;
      chain_words_ = 0;
      h->chain_rng_state = rng.state();
      h->chain_rng_inc = rng.inc();
    }
    if (custom_mutator_) {
      // The target's own mutator: the coordinator cannot replay it, so the mutant is
      // published raw (custom_mutator.h).
      // A crash inside the hook itself leaves the input it was given as the one to keep.
      std::memcpy(shm_.raw(), buf, size);
      Publish(&h->raw_size, static_cast<uint32_t>(size));
      Publish(&h->raw_in_mem, 1u);
      size = CustomMutate(*mutator_, buf, size, mutator_->max_size(), rng, sources);
      if (mutator_->ascii()) engine::ToAscii(buf, size);
      Publish(&h->chain_length, ++chain);
      found = RunPublished(buf, size);
    } else {
      size = mutator_->Mutate(buf, size, rng, sources);
      if (mutator_->last_word_size() > 0 && chain_words_ < engine::kChainLength) {
        ChainWord& w = chain_word_[chain_words_++];
        std::memcpy(w.bytes, mutator_->last_word(), mutator_->last_word_size());
        w.size = mutator_->last_word_size();
      }
      Publish(&h->chain_length, ++chain);
      gates_.ResetHits(s.sites);
      found = RunOne(buf, size);
      CountRun();
      if (!found && watch_gates && !mutator_->ascii() && FixGates(buf, size, &found)) {
        chain = 0;  // the buffer is no longer what the chain's replay gives: start a new chain
      }
    }
    // libFuzzer's -reduce_inputs: a shorter mutant with everything the entry is the
    // smallest to have can take its place.
    if (!found && size < entry_size && !owned_.empty() && HasOwnedFeatures()) reduced = true;
    if (found || reduced || request_runs_ >= max_runs || CoarseNowMs() >= deadline) break;
  }
  s.sites.mode = engine::CmpSiteLog::kOff;
  // The words the successful chain wrote join the learned dictionary (before FuzzDone: the
  // coordinator reads it once the request is answered).
  if (found && !stage_found) {
    for (uint32_t i = 0; i < chain_words_; i++)
      h->learned.Add(chain_word_[i].bytes, chain_word_[i].size);
  }
  result.setStageFound(stage_found);
  result.setHooksOff(hooks_off);
  result.setRuns(request_runs_);
  result.setFound(found);
  result.setEntryFeatureCount(entry_features);
  result.setReduced(reduced);
  if (found || reduced) {
    std::memcpy(shm_.raw(), buf, size);
    Publish(&h->raw_size, static_cast<uint32_t>(size));
    result.setInputSize(static_cast<uint32_t>(size));
    result.setFeatureCount(PublishFeatures());
  }
  SetPhase(engine::WorkerPhase::kIdle);
  if (!Send(message)) _exit(0);
}

bool Worker::FixGates(uint8_t* buf, size_t size, bool* found) {
  SancovState& s = GetSancovState();
  bool fixed = false;
  // A fix can uncover the next gate (a length, then the checksum over it): a few rounds.
  for (int round = 0; round < 3 && !*found; round++) {
    int gate = gates_.Fix(s.sites, buf, size);
    if (gate < 0) break;
    fixed = true;
    // The fixed input is not what the chain replays to.
    gates_.ResetHits(s.sites);
    *found = RunPublished(buf, size);
    gates_.Settle(gate, s.sites);
  }
  return fixed;
}

void Worker::HandleExecute() {
  engine::WorkerShmHeader* h = shm_.header();
  request_runs_ = 0;
  Publish(&h->runs, uint64_t{0});
  Publish(&h->raw_in_mem, 1u);
  SetPhase(engine::WorkerPhase::kExecute);
  size_t size = std::min<size_t>(h->raw_size, h->max_input);
  uint64_t start = base::MonotonicUs();
  RunOne(shm_.raw(), size);
  uint64_t elapsed = base::MonotonicUs() - start;
  CountRun();
  capnp::MallocMessageBuilder message;
  auto result = message.initRoot<schema::FromWorker>().initExecuted();
  result.setFeatureCount(PublishFeatures());
  result.setExecTimeUs(elapsed);
  SetPhase(engine::WorkerPhase::kIdle);
  if (!Send(message)) _exit(0);
}

void Worker::HandleMinimize(schema::MinimizeRequest::Reader request) {
  engine::WorkerShmHeader* h = shm_.header();
  request_runs_ = 0;
  Publish(&h->runs, uint64_t{0});
  Publish(&h->raw_in_mem, 1u);
  SetPhase(engine::WorkerPhase::kMinimize);
  // Candidates are judged by their coverage alone: without the value profile nothing reads
  // their comparisons, so they skip the hooks when the coordinator allows it.
  if (h->mutant_hooks_off != 0 && GetSancovState().value_profile == nullptr)
    hook_sites_.SetOff(true);
  uint32_t keep_count = std::min(request.getFeatureCount(), h->max_features);
  std::vector<uint32_t> keep(shm_.features(), shm_.features() + keep_count);
  std::sort(keep.begin(), keep.end());
  std::vector<uint8_t> input(shm_.raw(), shm_.raw() + std::min<size_t>(h->raw_size, h->max_input));
  // Past the request's time (a new input that runs slowly), the remaining candidates are
  // refused unrun: the minimizer then ends within its cheap loops.
  const uint32_t duration_ms = request.getDurationMs();
  const uint64_t deadline_ms = duration_ms == 0 ? UINT64_MAX : CoarseNowMs() + duration_ms;
  bool timed_out = false;
  auto oracle = [&](const uint8_t* data, size_t size) {
    if (timed_out || CoarseNowMs() >= deadline_ms) {
      timed_out = true;
      return false;
    }
    // Publish the candidate before it runs: if it kills us, the coordinator has it.
    std::memcpy(shm_.raw(), data, size);
    Publish(&h->raw_size, static_cast<uint32_t>(size));
    RunOne(data, size);
    CountRun();
    // Features come out of the scan sorted by counter index.
    return std::includes(features_.begin(),
                         features_.begin() + static_cast<ptrdiff_t>(feature_count_), keep.begin(),
                         keep.end());
  };
  uint64_t attempts = 0;
  std::vector<uint8_t> best = engine::MinimizeBytes(input, oracle, request.getMaxRuns(), &attempts);
  // Run the result once more: its own, complete feature list goes back.
  std::memcpy(shm_.raw(), best.data(), best.size());
  Publish(&h->raw_size, static_cast<uint32_t>(best.size()));
  RunOne(best.data(), best.size());
  CountRun();
  capnp::MallocMessageBuilder message;
  auto result = message.initRoot<schema::FromWorker>().initMinimized();
  result.setRuns(request_runs_);
  result.setInputSize(static_cast<uint32_t>(best.size()));
  result.setFeatureCount(PublishFeatures());
  result.setTimedOut(timed_out);
  SetPhase(engine::WorkerPhase::kIdle);
  if (!Send(message)) _exit(0);
}

int Worker::Serve() {
  {
    SancovState& s = GetSancovState();
    capnp::MallocMessageBuilder message;
    auto hello = message.initRoot<schema::FromWorker>().initHello();
    hello.setProtocolVersion(schema::WORKER_PROTOCOL_VERSION);
    hello.setPid(getpid());
    hello.setNumCounters(s.num_counters);
    hello.setNumModules(static_cast<uint32_t>(s.num_modules));
    hello.setNumPcs(s.num_pcs);
    hello.setMutatorTable(engine::Mutator::TableFingerprint());
    if (s.registered_profile != nullptr) {
      hello.setValueProfileFirst(s.value_profile_first);
      hello.setValueProfileCounters(engine::ValueProfile::kCounters);
    }
    if (!Send(message)) return 0;
    uintptr_t hooks[HookSites::kMaxHooks];
    hook_sites_.Init(hooks, ComparisonHookAddresses(hooks));
    if (s.num_counters > global_capacity_) Fatal("more counters than the coverage map holds");
  }
  engine::FrameWords words;
  while (true) {
    Status st = engine::ReadFrame(ctl_in_, decoder_, &words);
    if (!st.ok()) return 0;  // the coordinator went away: nothing left to do
    try {
      capnp::FlatArrayMessageReader reader(engine::AsWords(words), engine::FrameReaderOptions());
      auto msg = reader.getRoot<schema::ToWorker>();
      SetValueProfileActive(shm_.header()->value_profile != 0);
      // Every request starts with the hooks on: only a fuzz request's mutants and a minimize
      // request's candidates may skip them.
      // When they cannot be (a thread of the target's started while they were off), they
      // stay off and the next fuzz result asks the coordinator for a new worker.
      if (hook_sites_.off() && !hook_sites_.SetOff(false)) hooks_stuck_ = true;
      switch (msg.which()) {
        case schema::ToWorker::CONFIGURE:
          HandleConfigure(msg.getConfigure());
          break;
        case schema::ToWorker::FUZZ:
          if (!mutator_) Fatal("fuzz request before configure");
          HandleFuzz(msg.getFuzz());
          break;
        case schema::ToWorker::EXECUTE:
          if (!mutator_) Fatal("execute request before configure");
          HandleExecute();
          break;
        case schema::ToWorker::MINIMIZE:
          if (!mutator_) Fatal("minimize request before configure");
          HandleMinimize(msg.getMinimize());
          break;
        case schema::ToWorker::SHUTDOWN:
          _exit(0);  // not the target's destructors nor a leak check: nothing is left to run
        default:
          Fatal("unknown request");
      }
    } catch (const kj::Exception& e) {
      Fatal("malformed request from the coordinator");
    }
  }
}

}  // namespace pollen::runtime
