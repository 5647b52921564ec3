# Messages between `pollen node` and `pollen broker` (docs/cluster.md).
#
# Every message is one ClusterMessage, sent by a node as one ZeroMQ frame (a Cap'n Proto flat
# array, unpacked). The broker reads the header fields to validate and route it and relays
# the frame unchanged, behind a 16-byte relay header of its own (broker/relay_header.h).
# Receivers treat every field as untrusted: sizes are bounded, hashes are checked.
# Ordinals are never reused; new fields are only appended; a message with another
# protocolVersion is dropped and counted, never half-understood.
@0xd3d17faea1e801ed;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("pollen::schema");

const clusterProtocolVersion :UInt32 = 1;

# The topic: nodes of one campaign exchange messages; other campaigns never see them.
struct Campaign {
  target @0 :Text;              # the target's name (its binary's base name)
  buildId @1 :Text;             # the build id of the binary (features depend on it)
}

struct ClusterMessage {
  protocolVersion @0 :UInt32;   # clusterProtocolVersion
  campaign @1 :Campaign;
  origin @2 :Text;              # the sending node's id, unique in the cluster
  session @3 :UInt64;           # random per client start: `seq` restarts with a new session
  seq @4 :UInt64;               # 1, 2, 3, ... per (origin, session), over all kinds
  toNode @5 :Text;              # empty: the whole campaign; else only that node (replies)

  union {
    newInput @6 :NewInput;
    coverageDelta @7 :CoverageDelta;
    crash @8 :Crash;
    heartbeat @9 :Heartbeat;          # for the broker only: never relayed
    digest @10 :CorpusDigest;
    missingRequest @11 :MissingRequest;
  }
}

# Features travel as "compressed sparse" lists: ascending feature ids (engine/coverage.h),
# each written as its difference from the previous one in LEB128 (1-2 bytes for most).

# An input that added coverage on its origin node.
struct NewInput {
  hash @0 :Data;                # SHA-1 of `bytes` (20 bytes), the corpus key everywhere
  bytes @1 :Data;
  features @2 :Data;            # every feature its execution covered on the origin's build
}

# Features the origin reached since its previous delta.
struct CoverageDelta {
  features @0 :Data;
  totalFeatures @1 :UInt64;     # the origin's coverage after this delta
}

# A failure found by the origin; the signature is the dedup key (kind + top frames).
struct Crash {
  signature @0 :Text;
  kind @1 :Text;
  inputHash @2 :Data;           # SHA-1 of the reproducer
  input @3 :Data;               # the reproducer itself, when small enough to send
}

# The origin's stats, every second or so; also tells the broker the node is alive.
struct Heartbeat {
  executions @0 :UInt64;
  execsPerSecond @1 :UInt64;
  corpusEntries @2 :UInt64;
  features @3 :UInt64;
  crashes @4 :UInt64;
  inputsSent @5 :UInt64;
  inputsReceived @6 :UInt64;
  inputsKept @7 :UInt64;
}

# One page of the hashes of the inputs the origin found itself, in ascending order; a node
# that has not seen some of them asks for them with a MissingRequest to the origin.
struct CorpusDigest {
  corpusSize @0 :UInt64;        # how many such inputs the origin has in all
  firstIndex @1 :UInt64;        # position of this page's first hash in that sorted list
  hashes @2 :Data;              # 20-byte SHA-1s, concatenated
}

# "Send me these inputs again", to the node that announced them (toNode).
struct MissingRequest {
  hashes @0 :Data;              # 20-byte SHA-1s, concatenated
}
