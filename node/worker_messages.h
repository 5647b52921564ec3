// The coordinator's side of the worker protocol (schema/worker.capnp): the only code in node/
// that builds or reads its messages (docs/decisions.md, "the wire layer"). The worker's side
// is engine/runtime/worker.cc. Bulk data travels in the worker's shared memory, not here.
#ifndef POLLEN_NODE_WORKER_MESSAGES_H_
#define POLLEN_NODE_WORKER_MESSAGES_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "engine/frame.h"
#include "node/worker_process.h"

namespace pollen::node {

// What a worker says about itself right after it starts.
struct WorkerHello {
  uint32_t protocol_version = 0;
  uint64_t num_counters = 0;
  uint32_t num_modules = 0;
  uint64_t num_pcs = 0;
  uint64_t value_profile_first = 0;
  uint64_t value_profile_counters = 0;
  uint64_t mutator_table = 0;
};

// The answer to a fuzz request (schema FuzzResult: the fields mean the same).
struct FuzzDone {
  uint64_t runs = 0;
  bool found = false;
  uint32_t input_size = 0;
  uint32_t feature_count = 0;
  uint32_t entry_feature_count = 0;
  bool reduced = false;
  uint32_t stage_next = 0;
  bool stage_done = false;
  uint32_t stage_runs = 0;
  bool stage_found = false;
  bool hooks_off = false;    // the mutants ran without comparison hooks
  bool hooks_stuck = false;  // they could not be turned back on: restart the worker
};

// The answer to an execute request.
struct Executed {
  uint32_t feature_count = 0;
  uint64_t exec_time_us = 0;
};

// The answer to a minimize request.
struct Minimized {
  uint64_t runs = 0;
  uint32_t input_size = 0;
  uint32_t feature_count = 0;
  bool timed_out = false;  // candidates were refused for the request's time
};

using FromWorker = std::variant<WorkerHello, FuzzDone, Executed, Minimized>;

// The protocol version this side speaks (schema/worker.capnp's workerProtocolVersion).
extern const uint32_t kWorkerProtocolVersion;

// Whether a worker's hello comes from a target this pollen can drive: the same protocol
// version and the same mutator table (engine::Mutator::TableFingerprint: crashing inputs are
// rebuilt here by replaying the worker's chains). The error names `target` and says
// "rebuild it".
Status CheckHelloBuild(const WorkerHello& hello, const std::string& target);

// One frame from a worker, decoded; an error names what was wrong (not a message of this
// protocol, or a kind this side does not know).
Result<FromWorker> DecodeFromWorker(const engine::FrameWords& words);

// A fuzz request (schema FuzzRequest: the fields mean the same).
struct FuzzParams {
  uint64_t rng_state = 0;
  uint64_t rng_inc = 0;
  uint32_t duration_ms = 0;
  uint64_t max_runs = 0;
  uint32_t owned_count = 0;
  bool stage = false;
  uint32_t stage_from = 0;
};

Status SendConfigure(WorkerProcess& worker, uint32_t max_len,
                     const std::vector<std::string>& dictionary, bool only_ascii = false);
Status SendFuzz(WorkerProcess& worker, const FuzzParams& params);
Status SendExecute(WorkerProcess& worker);
// duration_ms 0: no time limit.
Status SendMinimize(WorkerProcess& worker, uint32_t feature_count, uint64_t max_runs,
                    uint32_t duration_ms);
Status SendShutdown(WorkerProcess& worker);

}  // namespace pollen::node

#endif  // POLLEN_NODE_WORKER_MESSAGES_H_
