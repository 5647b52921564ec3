// Worker mode: the loop a target runs when the coordinator starts it.
//
// The worker owns nothing but its buffers: the coordinator owns the shared memory (it
// created the memfds) and the global coverage map. Requests arrive as frames on the control
// pipe; results go back the same way, with the bulk data in shared memory.
#ifndef POLLEN_ENGINE_RUNTIME_WORKER_H_
#define POLLEN_ENGINE_RUNTIME_WORKER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cmp_log.h"
#include "engine/cmp_sequence.h"
#include "engine/colorize.h"
#include "engine/dictionary.h"
#include "engine/frame.h"
#include "engine/gates.h"
#include "engine/mutator.h"
#include "engine/runtime/hook_sites.h"
#include "engine/shm_layout.h"
#include "schema/worker.capnp.h"

namespace pollen::runtime {

using TestOneInputFn = int (*)(const uint8_t*, size_t);

class Worker {
 public:
  Worker(TestOneInputFn test_one_input, int ctl_in, int ctl_out, engine::WorkerShmView shm,
         const uint8_t* global_map, uint64_t global_capacity);

  // Serves requests until the coordinator closes the pipe (returns the process exit code)
  // or asks to shut down (the process exits with 0 at once: no destructors, no leak check).
  int Serve();

 private:
  // One execution of the harness on data[0,size), then the fused scan-and-clear of every
  // counter. Leaves the execution's features in features_ and reports whether any of them
  // is missing from the global map.
  bool RunOne(const uint8_t* data, size_t size);
  // RunOne, and CountRun, for an input that no mutation chain replays to (a gate fix, a
  // stage candidate): published in the raw area before it runs, so that a crash or hang in
  // it is rebuilt from there.
  bool RunPublished(const uint8_t* data, size_t size);

  void HandleConfigure(schema::WorkerConfig::Reader config);
  void HandleFuzz(schema::FuzzRequest::Reader request);
  // After a mutant failed a gate of the entry: fixes its field in buf and runs it again,
  // up to three times; sets *found like RunOne. Returns whether buf was changed.
  bool FixGates(uint8_t* buf, size_t size, bool* found);
  // The input-to-state stage of the entry (entry[0, entry_size), whose run filled cmp_log_),
  // from candidate `from`, in buf, until a find, its end, or the limits. Fills the result's
  // stage fields; returns whether a candidate found new coverage (then in buf[0, *size)).
  bool RunStage(uint32_t from, size_t entry_size, uint64_t max_runs, uint64_t deadline_ms,
                uint8_t* buf, size_t* size, schema::FuzzResult::Builder result);
  // Colorizes the entry (until deadline_ms at most) and returns the candidates of its
  // comparisons that moved; sets *found (buf[0, *size) then holds the input) if a
  // colorization run found new coverage.
  std::vector<engine::ColorCandidate> ColorizeEntry(size_t entry_size, uint64_t deadline_ms,
                                                    uint8_t* buf, size_t* size, bool* found);
  void HandleExecute();
  void HandleMinimize(schema::MinimizeRequest::Reader request);

  // Whether the last execution (features_) has every feature in owned_.
  bool HasOwnedFeatures() const;
  // Copies features_ into the shared feature area; returns how many fit.
  uint32_t PublishFeatures();
  void SetPhase(engine::WorkerPhase phase);
  void CountRun();
  bool Send(capnp::MessageBuilder& message);

  TestOneInputFn test_one_input_;
  int ctl_in_;
  int ctl_out_;
  engine::WorkerShmView shm_;
  const uint8_t* global_map_;
  uint64_t global_capacity_;
  engine::FrameDecoder decoder_;

  uint32_t max_len_ = 0;
  engine::Dictionary dictionary_;
  std::unique_ptr<engine::Mutator> mutator_;
  bool custom_mutator_ = false;  // the target defines LLVMFuzzerCustomMutator/CrossOver
  engine::GateSet gates_;        // of the entry being fuzzed
  HookSites& hook_sites_;        // the process's one patcher (a megabyte: not on the stack)
  bool hooks_stuck_ = false;     // the hooks could not be turned back on
  // The words the current chain's mutations wrote (Mutator::last_word).
  struct ChainWord {
    uint8_t bytes[engine::LearnedWords::kMaxWord];
    size_t size;
  };
  ChainWord chain_word_[engine::kChainLength];
  uint32_t chain_words_ = 0;
  std::vector<uint8_t> mutation_buffer_;  // the input being mutated
  std::vector<uint8_t> exec_buffer_;      // inputs run from its tail, so ASan sees overflows
  std::vector<uint32_t> features_;        // features of the last execution
  std::vector<uint32_t> owned_;           // the entry's own features (FuzzRequest.ownedCount)
  std::unique_ptr<engine::CmpLog> cmp_log_ = std::make_unique<engine::CmpLog>();
  // The entry's comparisons in order, and its colorized copy's (engine/colorize.h).
  std::unique_ptr<engine::CmpSequence> entry_seq_ = std::make_unique<engine::CmpSequence>();
  std::unique_ptr<engine::CmpSequence> color_seq_ = std::make_unique<engine::CmpSequence>();
  std::vector<uint32_t> entry_features_;  // of the entry's run in a staged request
  size_t feature_count_ = 0;
  uint64_t request_runs_ = 0;
};

// Entry point for worker mode (worker_mode.cc): reads the descriptors from the environment,
// maps shared memory, runs LLVMFuzzerInitialize and serves. Returns the process exit code.
int RunWorkerMode(TestOneInputFn test_one_input, int* argc, char*** argv);

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_WORKER_H_
