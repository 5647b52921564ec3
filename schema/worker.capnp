# Control messages between the coordinator (pollen node/fuzz) and one worker process.
#
# Each message travels on the worker's control pipes as a frame: a little-endian u32 giving
# the size in 8-byte words, then the message as a Cap'n Proto flat array. Bulk data (inputs,
# feature lists, the RNG state of the running mutation chain) lives in the worker's shared
# memory region (engine/shm_layout.h), not in messages: a message says what to do with it.
# Ordinals are never reused; new fields are only appended.
@0xd3b1c4a2f5e69780;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("pollen::schema");

const workerProtocolVersion :UInt32 = 1;

# Coordinator -> worker.
struct ToWorker {
  union {
    configure @0 :WorkerConfig;
    fuzz @1 :FuzzRequest;
    execute @2 :ExecuteRequest;
    minimize @3 :MinimizeRequest;
    shutdown @4 :Void;
  }
}

# Sent once, right after the worker's hello.
struct WorkerConfig {
  maxLen @0 :UInt32;            # inputs never grow beyond this many bytes
  dictionary @1 :List(Data);    # entries of the --dict file, already parsed
  onlyAscii @2 :Bool;           # mutants of printable ASCII and whitespace only (--only-ascii)
}

# Mutate the entry in shared memory (with the cross-over partner beside it) and execute,
# until an execution finds a feature the global map lacks, or `durationMs` or `maxRuns` is
# reached. The RNG starts at (rngState, rngInc): the coordinator can replay any chain.
struct FuzzRequest {
  rngState @0 :UInt64;
  rngInc @1 :UInt64;
  durationMs @2 :UInt32;
  maxRuns @3 :UInt64;
  # The first ownedCount features of the shared feature area are those the entry owns (no
  # smaller entry has them). A mutant shorter than the entry with all of them is reported as
  # a reduction (FuzzResult.reduced). 0: look for none.
  ownedCount @4 :UInt32;
  # Before the random mutations: the input-to-state stage (engine/i2s_stage.h) of the entry,
  # from candidate stageFrom on, until it ends or the request's limits are reached.
  stage @5 :Bool;
  stageFrom @6 :UInt32;
}

# Execute the raw input in shared memory once and report its features.
struct ExecuteRequest {
  unused @0 :Void;
}

# Shrink the raw input in shared memory while every feature listed in the shared feature
# area (featureCount of them) is still covered. Each candidate is written to shared memory
# before it runs, so a crash during minimization loses nothing.
struct MinimizeRequest {
  featureCount @0 :UInt32;
  maxRuns @1 :UInt64;
  durationMs @2 :UInt32;        # 0: no limit; past it the remaining candidates are refused unrun
}

# Worker -> coordinator.
struct FromWorker {
  union {
    hello @0 :Hello;
    fuzzDone @1 :FuzzResult;
    executed @2 :ExecuteResult;
    minimized @3 :MinimizeResult;
  }
}

struct Hello {
  protocolVersion @0 :UInt32;
  pid @1 :Int32;
  numCounters @2 :UInt64;       # inline 8-bit counters over every instrumented module
  numModules @3 :UInt32;
  numPcs @4 :UInt64;            # pc-table entries (0 when built without -fsanitize-coverage=pc-table)
  valueProfileFirst @5 :UInt64;   # first counter of the value profile's ladders (engine/value_profile.h)
  valueProfileCounters @6 :UInt64;  # their number; 0: the value profile is off
  mutatorTable @7 :UInt64;      # engine::Mutator::TableFingerprint(): the coordinator replays
                                # the worker's mutation chains with its own table, so both
                                # must have the same (0 from a runtime older than the field)
}

struct FuzzResult {
  runs @0 :UInt64;              # executions made for this request
  found @1 :Bool;               # true: the raw area holds an input with new coverage
  inputSize @2 :UInt32;
  featureCount @3 :UInt32;      # all features of that execution, in the shared feature area
  entryFeatureCount @4 :UInt32; # features of the request's first run: the entry, unmutated
  reduced @5 :Bool;             # found is false and the raw area holds a reduction of the
                                # entry (FuzzRequest.ownedCount), with its features
  stageNext @6 :UInt32;         # the stage's next candidate, when it did not end
  stageDone @7 :Bool;           # the stage tried its last candidate
  stageRuns @8 :UInt32;         # executions of stage candidates in this request
  stageFound @9 :Bool;          # found came from a stage candidate
  hooksOff @10 :Bool;           # the mutants ran without comparison hooks (mutant_hooks_off)
  hooksStuck @11 :Bool;         # the hooks could not be turned back on (a thread of the
                                # target's runs): restart this worker
}

struct ExecuteResult {
  featureCount @0 :UInt32;
  execTimeUs @1 :UInt64;
}

struct MinimizeResult {
  runs @0 :UInt64;
  inputSize @1 :UInt32;         # the minimized input is in the raw area
  featureCount @2 :UInt32;      # all features of its execution
  timedOut @3 :Bool;            # candidates were refused for the request's durationMs
}
