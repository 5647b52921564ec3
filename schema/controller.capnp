# The controller's protocol (docs/controller.md): nodes and developer hosts talk to
# `pollen controller`, and the records the controller keeps in its registry.
#
# Every message is one ControllerMessage, one ZeroMQ frame (an unpacked Cap'n Proto flat
# array), sent by a DEALER to the controller's ROUTER. A request carries an id chosen by the
# client; its reply carries the same id. The controller treats every field as untrusted:
# sizes are bounded, names checked, hashes verified (controller/controller_codec.h).
# Ordinals are never reused; new fields and kinds are only appended; a message with another
# protocolVersion gets an error reply (wrongVersion), never a half-understood answer.
@0x9290a4bbfe17c880;

using Cxx = import "/capnp/c++.capnp";
# Its own C++ namespace: cluster.capnp has a Heartbeat and a Crash too, and node/ includes both.
$Cxx.namespace("pollen::schema::controller");

using Transfer = import "transfer.capnp";

const controllerProtocolVersion :UInt32 = 1;

struct ControllerMessage {
  protocolVersion @0 :UInt32;   # controllerProtocolVersion
  requestId @1 :UInt64;         # chosen by the client; a reply echoes its request's

  union {
    # Node -> controller.
    register @2 :Register;
    heartbeat @3 :Heartbeat;
    newInputs @4 :NewInputs;
    crash @5 :Crash;

    # Developer host -> controller.
    listCampaigns @6 :Void;
    status @7 :StatusRequest;
    listCrashes @8 :ListCrashes;
    getCrash @9 :GetCrash;
    startCampaign @10 :CampaignRef;
    stopCampaign @11 :CampaignRef;
    corpusInfo @12 :CampaignRef;
    mergeCorpus @13 :CampaignRef;

    # Controller -> client: the reply to each request.
    error @14 :Error;
    registered @15 :Registered;
    heartbeatReply @16 :HeartbeatReply;
    inputsAccepted @17 :InputsAccepted;
    crashAccepted @18 :CrashAccepted;
    campaigns @19 :CampaignList;
    statusReply @20 :StatusReply;
    crashes @21 :CrashList;
    crashDetail @22 :CrashDetail;
    campaignState @23 :CampaignState;
    corpusInfoReply @24 :CorpusInfo;
    mergeReply @25 :MergeReply;

    # Bulk data (NamedByteSequence streams, transfer/; docs/controller.md, "Streams"):
    # either direction, after a pull's open or a pushCorpus. Each transfer on a DEALER of
    # its own; requestId 0 except on the open answering a pushCorpus (its request's id).
    stream @26 :Transfer.StreamMessage;

    # Developer host -> controller: "I want to push records into `campaign`'s pushed
    # corpus"; answered by the controller's stream open (the receiver opens), carrying the
    # resume cursor of this push id, or an error.
    pushCorpus @27 :PushCorpus;

    # Node -> controller: "I want to report a crash whose reproducer does not fit in a
    # message"; answered by the controller's stream open, then the node sends the records
    # `input` and (optionally) `report`; the controller counts the crash when the stream
    # ends, as for a `crash` message, and only then ends it.
    pushCrash @28 :PushCrash;

    # Developer host (`pollen nightly`) -> controller: a night's report files, kept in the
    # registry (replacing that night's) and pulled as the stream
    # reports/<campaign>[/<night>|/latest] (docs/nightly.md); answered by reportStored.
    putReport @29 :PutReport;
    reportStored @30 :ReportStored;

    # Developer host (`pollen nightly`, `pollen build push`) -> controller: "I want to push
    # a build of `campaign` and assign it": answered by the controller's stream open, then
    # one record named by the target holding the executable; when the stream is complete
    # and the bytes match the build id, the build is stored, added to the campaign (created
    # if new) and assigned: nodes that follow the campaign's builds (`pollen node
    # --follow-builds`) pull it as build/<campaign> and fuzz it (docs/nightly.md).
    pushBuild @31 :PushBuild;
  }
}

# A campaign as a developer names it: its name, and a build id (empty: the campaign's
# current build, the newest one: the last build registered for the first time).
struct CampaignRef {
  name @0 :Text;
  buildId @1 :Text;
}

# ---- Node -> controller ----------------------------------------------------------------

# "I am node `nodeId`, fuzzing `campaign` with this build of `target`." Sent when a node
# starts and again whenever the controller answers `unknownNode`. Creates the campaign (and
# the build) when it is new.
struct Register {
  nodeId @0 :Text;              # unique in the cluster
  campaign @1 :Text;            # the campaign's name: [A-Za-z0-9][A-Za-z0-9._-]*, <= 128
  target @2 :Text;              # the target's name (fixed for a campaign)
  buildId @3 :Text;             # the build of the binary: same rules as a campaign name
  options @4 :Text;             # the node's fuzzing options, as text (shown, not parsed)
  host @5 :Text;
  workers @6 :UInt32;
}

struct NodeStats {
  execsPerSecond @0 :UInt64;
  executions @1 :UInt64;
  edges @2 :UInt64;
  features @3 :UInt64;
  corpusEntries @4 :UInt64;
  crashes @5 :UInt64;
  rssBytes @6 :UInt64;
}

# Every few seconds; a node silent for --lost-after seconds is "lost".
struct Heartbeat {
  nodeId @0 :Text;
  stats @1 :NodeStats;
  leaving @2 :Bool;             # the node's last heartbeat: it ends cleanly (not lost)
}

# Features travel as in cluster.capnp: ascending ids, each as its difference from the
# previous one in LEB128 (broker/feature_codec.h).
struct InputEntry {
  hash @0 :Data;                # SHA-1 of `bytes` (20 bytes); checked
  bytes @1 :Data;
  features @2 :Data;            # every feature it covers on the node's build
}

# Inputs that joined the node's corpus, for the campaign's merged corpus.
struct NewInputs {
  nodeId @0 :Text;
  entries @1 :List(InputEntry);
}

# A failure found by the node, with its reproducer (inline: the message limit bounds it).
struct Crash {
  nodeId @0 :Text;
  signature @1 :Text;           # the dedup key (kind + top frames)
  kind @2 :Text;
  input @3 :Data;               # the reproducer
  report @4 :Text;              # the sanitizer report, possibly cut
  minimized @5 :Bool;           # the node minimized `input`
}

# A crash as `Crash`, its reproducer and report in a stream instead (see pushCrash).
struct PushCrash {
  nodeId @0 :Text;
  campaign @1 :Text;            # the node's campaign (for the open's resource name)
  signature @2 :Text;
  kind @3 :Text;
  minimized @4 :Bool;
  streamId @5 :UInt64;          # the id the controller's open will carry
}

# ---- Developer host -> controller -----------------------------------------------------

struct StatusRequest {
  campaign @0 :Text;            # empty: every campaign
}

struct ListCrashes {
  campaign @0 :CampaignRef;
  after @1 :Text;               # list signatures greater than this one (paging)
}

struct GetCrash {
  campaign @0 :CampaignRef;
  signature @1 :Text;
}

struct PushCorpus {
  campaign @0 :CampaignRef;     # the build id is ignored: pushed inputs are the campaign's
  pushId @1 :Text;              # names this push for resuming (same rules as a campaign name)
  streamId @2 :UInt64;          # the id the controller's open will carry
}

struct PushBuild {
  campaign @0 :Text;            # a campaign name (created by the push when new)
  target @1 :Text;              # the campaign's target (a node's target name)
  buildId @2 :Text;             # 16 hex digits of the SHA-1 of the executable
  streamId @3 :UInt64;          # the id the controller's open will carry
}

struct ReportFile {
  name @0 :Text;                # [A-Za-z0-9._-], 1-64 bytes: report.json, report.md, ...
  data @1 :Data;
}

struct PutReport {
  campaign @0 :Text;            # a campaign name (it need not have nodes yet)
  night @1 :Text;               # YYYY-MM-DD
  files @2 :List(ReportFile);   # at most 16
}

# ---- Replies --------------------------------------------------------------------------

enum ErrorCode {
  malformed @0;                 # not a valid message, or a field out of its bounds
  wrongVersion @1;              # another protocolVersion
  invalidName @2;               # a campaign name or build id that cannot be a directory name
  unknownCampaign @3;
  unknownNode @4;               # heartbeat, inputs or crash from a node not registered: register
  conflict @5;                  # e.g. a campaign registered for another target
  tooLarge @6;                  # the answer would not fit in a message
  notFound @7;                  # no such crash
  storage @8;                   # the controller's storage failed (its log says more)
  unimplemented @9;             # a kind this controller does not serve
  notARequest @10;              # a reply kind sent to the controller
}

struct Error {
  code @0 :ErrorCode;
  message @1 :Text;
}

struct Registered {
  stopped @0 :Bool;             # the campaign is stopped: do not fuzz
  corpusEntries @1 :UInt64;     # entries in the merged corpus of this build
}

struct HeartbeatReply {
  stop @0 :Bool;                # the campaign was stopped
  minimize @1 :List(Text);      # signatures to minimize and report again (minimized)
  pushedSeq @2 :UInt64;         # inputs pushed to the campaign so far: pull "pushed/<campaign>"
                                # after your cursor when it grew
  assignedBuild @3 :Text;       # the build assigned to the campaign (pushBuild), "" if none:
                                # a node following the builds moves to it when it differs
}

struct InputsAccepted {
  added @0 :UInt32;             # joined the merged corpus
  duplicates @1 :UInt32;        # already in it (by hash)
  notNeeded @2 :UInt32;         # no feature the merged corpus lacks
}

struct CrashAccepted {
  count @0 :UInt64;             # reports of this signature so far, this one included
  newSignature @1 :Bool;        # the first report of it
  minimized @2 :Bool;           # the kept reproducer is minimized (or smaller than one that is)
}

struct BuildInfo {
  buildId @0 :Text;
  firstSeenUnixMs @1 :Int64;
  lastSeenUnixMs @2 :Int64;
}

struct CampaignSummary {
  name @0 :Text;
  target @1 :Text;
  buildId @2 :Text;             # the current build
  builds @3 :List(BuildInfo);   # every build registered, oldest first
  options @4 :Text;             # of the last registration
  stopped @5 :Bool;
  createdUnixMs @6 :Int64;
  nodesAlive @7 :UInt32;
  nodesLost @8 :UInt32;
  assignedBuild @9 :Text;       # the build nodes following the campaign fuzz, "" if none
}

struct CampaignList {
  campaigns @0 :List(CampaignSummary);
}

enum NodeState {
  alive @0;
  lost @1;
  left @2;                      # its last heartbeat said it was ending
}

struct NodeStatus {
  nodeId @0 :Text;
  campaign @1 :Text;
  buildId @2 :Text;
  host @3 :Text;
  workers @4 :UInt32;
  state @5 :NodeState;
  lastHeartbeatAgeMs @6 :UInt64;
  stats @7 :NodeStats;          # of its last heartbeat
}

# One campaign's current build: its alive nodes' figures added up (exec/s, executions,
# crashes found, RSS) or their maximum (edges, features), and the merged corpus and triage.
struct CampaignStatus {
  name @0 :Text;
  buildId @1 :Text;
  stopped @2 :Bool;
  nodesAlive @3 :UInt32;
  nodesLost @4 :UInt32;
  execsPerSecond @5 :UInt64;
  executions @6 :UInt64;
  edges @7 :UInt64;
  features @8 :UInt64;
  corpusEntries @9 :UInt64;     # merged corpus
  corpusFeatures @10 :UInt64;   # features the merged corpus covers
  crashes @11 :UInt64;          # distinct signatures triaged
  rssBytes @12 :UInt64;
}

struct StatusReply {
  campaigns @0 :List(CampaignStatus);
  nodes @1 :List(NodeStatus);
  truncated @2 :Bool;           # some nodes were left out to fit in a message
}

struct CrashSummary {
  signature @0 :Text;
  kind @1 :Text;
  count @2 :UInt64;
  inputSize @3 :UInt64;
  minimized @4 :Bool;
  firstSeenUnixMs @5 :Int64;
  lastSeenUnixMs @6 :Int64;
  nodes @7 :UInt32;             # distinct nodes that reported it (as far as remembered)
}

struct CrashList {
  crashes @0 :List(CrashSummary);  # in signature order
  truncated @1 :Bool;              # more follow: ask again with `after` = the last signature
}

struct CrashDetail {
  summary @0 :CrashSummary;
  input @1 :Data;
  report @2 :Text;
}

struct CampaignState {
  name @0 :Text;
  stopped @1 :Bool;
}

struct CorpusInfo {
  name @0 :Text;
  buildId @1 :Text;
  entries @2 :UInt64;
  bytes @3 :UInt64;             # sum of input sizes
  features @4 :UInt64;          # in the union of the entries' features
  lastMergeUnixMs @5 :Int64;    # 0: not merged since the controller started
  pushedEntries @6 :UInt64;     # inputs pushed to the campaign (any build), = pushedSeq
  pullEntries @7 :UInt64;       # records a whole pull of "corpus/<campaign>[/<build>]" sends
}

struct ReportStored {
  night @0 :Text;
  files @1 :UInt32;
}

struct MergeReply {
  entriesBefore @0 :UInt64;
  entriesAfter @1 :UInt64;
  features @2 :UInt64;
  durationMs @3 :UInt64;
}

# ---- Records the controller keeps in registry/ (never sent) -----------------------------

struct CampaignRecord {
  name @0 :Text;
  target @1 :Text;
  currentBuild @2 :Text;
  builds @3 :List(BuildInfo);
  options @4 :Text;
  stopped @5 :Bool;
  createdUnixMs @6 :Int64;
  assignedBuild @7 :Text;       # the last build pushed (pushBuild), "" if none
}

struct NodeRecord {
  nodeId @0 :Text;
  campaign @1 :Text;
  buildId @2 :Text;
  host @3 :Text;
  workers @4 :UInt32;
  registeredUnixMs @5 :Int64;
  lastSeenUnixMs @6 :Int64;
  stats @7 :NodeStats;
  left @8 :Bool;
}

# What a campaign's crash table (storage/) does not hold about a crash.
struct CrashState {
  minimized @0 :Bool;
  reporters @1 :List(Text);     # node ids, at most 64
}
