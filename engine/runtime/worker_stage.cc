// The worker's input-to-state stage (engine/i2s_stage.h): the entry colorized, then every
// logged operand tried at the places its bytes came from. The fuzz loop is in worker.cc.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/colorize.h"
#include "engine/i2s_stage.h"
#include "engine/rng.h"
#include "engine/runtime/coarse_clock.h"
#include "engine/runtime/sancov_state.h"
#include "engine/runtime/worker.h"

namespace pollen::runtime {
namespace {

uint64_t Fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

}  // namespace

bool Worker::RunStage(uint32_t from, size_t entry_size, uint64_t max_runs, uint64_t deadline_ms,
                      uint8_t* buf, size_t* size, schema::FuzzResult::Builder result) {
  engine::WorkerShmHeader* h = shm_.header();
  SancovState& s = GetSancovState();
  const uint8_t* entry = shm_.entry();
  const uint64_t before = request_runs_;
  bool found = false;
  std::vector<engine::ColorCandidate> colored =
      ColorizeEntry(entry_size, deadline_ms, buf, size, &found);
  if (found) {
    result.setStageNext(from);  // the same stage again, next time
    result.setStageRuns(static_cast<uint32_t>(request_runs_ - before));
    return true;
  }
  engine::I2sStage stage(*cmp_log_, entry, entry_size, max_len_, colored);
  uint32_t i = from;
  while (i < stage.size() && !found) {
    if (request_runs_ >= max_runs || CoarseNowMs() >= deadline_ms) break;
    *size = stage.Build(i, entry, entry_size, buf);
    gates_.ResetHits(s.sites);
    found = RunPublished(buf, *size);
    if (found) {
      size_t n = stage.replacement_size(i);
      if (n >= 2) h->learned.Add(stage.replacement(i), n);
    }
    i++;
  }
  result.setStageNext(i);
  result.setStageDone(i >= stage.size());
  result.setStageRuns(static_cast<uint32_t>(request_runs_ - before));
  return found;
}

std::vector<engine::ColorCandidate> Worker::ColorizeEntry(size_t entry_size, uint64_t deadline_ms,
                                                          uint8_t* buf, size_t* size, bool* found) {
  constexpr size_t kMaxColorRuns = 256;
  SancovState& s = GetSancovState();
  const uint8_t* entry = shm_.entry();
  auto run_raw = [&](const uint8_t* data, size_t n) {
    bool fresh = RunPublished(data, n);
    if (fresh && !*found) {
      *found = true;
      std::memcpy(buf, data, n);
      *size = n;
    }
    return fresh;
  };
  auto same_path = [&](const uint8_t* data, size_t n) {
    // Past the request's time (a slow target), the remaining tries are refused unrun.
    if (*found || CoarseNowMs() >= deadline_ms) return false;
    if (run_raw(data, n)) return false;
    return feature_count_ == entry_features_.size() &&
           std::equal(entry_features_.begin(), entry_features_.end(), features_.begin());
  };
  // The same bytes every time for the same entry: a stage resumed in a later request finds
  // the same candidates at the same indices.
  engine::Rng rng = engine::Rng::FromSeed(Fnv1a(entry, entry_size));
  size_t runs = 0;
  std::vector<uint8_t> colored = engine::Colorize(
      entry, entry_size, rng, std::min(kMaxColorRuns, 2 * entry_size), same_path, &runs);
  if (*found) return {};
  color_seq_->Clear();
  s.cmp_seq = color_seq_.get();
  bool fresh = run_raw(colored.data(), colored.size());
  s.cmp_seq = nullptr;
  if (fresh) return {};
  return engine::ColorCandidates(*entry_seq_, *color_seq_, entry, colored.data(), entry_size,
                                 engine::I2sStage::kMaxCandidates);
}

}  // namespace pollen::runtime
