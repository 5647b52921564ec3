// pollen corpus pull|push --campaign=NAME ...: NamedByteSequence streams with the controller,
// into or out of a libFuzzer-style directory or a corpus store, with progress, resumable.
#include "cli/corpus_sync_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/corpus_common.h"
#include "cli/flag_parser.h"
#include "cli/store_records.h"
#include "cli/target_setup.h"
#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "node/interrupt.h"
#include "transfer/directory_records.h"

namespace pollen::cli {
namespace {

namespace fs = std::filesystem;
namespace ctl = ::pollen::controller;

constexpr int kExitInterrupted = 130;
// The pull's cursor file is rewritten whenever this much was committed since: a pull killed
// outright sends again at most that much (about half the default window) and what was in
// flight.
constexpr uint64_t kCursorEveryBytes = 1 << 20;

const char kPullHelp[] =
    "Usage: pollen corpus pull --campaign=NAME [--build=ID] DIR [flags]\n"
    "\n"
    "Pulls the campaign's corpus from the controller: the merged corpus of its current build\n"
    "(or of --build) and every input pushed to it, each once. DIR is\n"
    "  - a directory (created if needed): one file per input named by its SHA-1, as libFuzzer\n"
    "    names corpus files; a file of that name is replaced;\n"
    "  - or a corpus store, or a work directory of `pollen fuzz` (its corpus/): the inputs\n"
    "    join the store without features (the next `pollen fuzz` runs them); inputs it has\n"
    "    are kept as they are.\n"
    "An interrupted pull (Ctrl-C, a lost connection, a kill) resumes where it stopped when the\n"
    "same command runs again: the cursor is kept beside DIR, in DIR.pollen-pull-NAME, until\n"
    "the pull completes. A complete pull sends the whole corpus again the next time.\n";

const char kPushHelp[] =
    "Usage: pollen corpus push --campaign=NAME DIR... [flags]\n"
    "\n"
    "Pushes seeds and regression inputs to the campaign: every regular file directly in each\n"
    "DIR (dotfiles and subdirectories skipped), or every entry of DIR when it is a corpus\n"
    "store or a work directory of `pollen fuzz`. They join the campaign's pushed inputs on the\n"
    "controller, part of its corpus, and every node of the campaign (of any build) pulls and\n"
    "runs them; those that add coverage join the merged corpus. An input pushed before counts\n"
    "once. An interrupted push resumes when the same command runs again on this host (the\n"
    "controller keeps where each DIR's push stopped until it completes).\n";

struct SyncFlags {
  ControllerConnectionFlags connection;
  std::string campaign;
  uint32_t max_record_mib = 64;
  bool sync = false;
  bool from_start = false;
  std::string build;
};

void AddSyncFlags(FlagParser* parser, SyncFlags* flags) {
  parser->Add("campaign", &flags->campaign, "the campaign (required)");
  parser->Add("max_record_mib", &flags->max_record_mib,
              "largest input accepted or sent, MiB (as the controller's --max-record-mib)");
  AddControllerFlags(parser, &flags->connection);
}

// Parses; returns -1 to go on, else the exit code.
int Parse(FlagParser& parser, SyncFlags& flags, const char* help, int argc, char** argv,
          std::vector<std::string>* positional) {
  bool want_help = false;
  Status parsed = parser.Parse(argc, argv, positional, &want_help);
  if (want_help) {
    std::printf("%s\nFlags:\n%s%s", help, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (flags.campaign.empty()) return UsageError("--campaign=NAME is required");
  if (positional->empty()) return UsageError("expected a directory (see --help)");
  if (flags.max_record_mib == 0 || flags.max_record_mib > 4095) {
    return UsageError("--max-record-mib must be between 1 and 4095");
  }
  return -1;
}

// What the stream functions take: the flags' connection, checked by ConnectToController
// first (which words an unreachable controller or a refused key).
Result<ctl::ControllerClientOptions> StreamOptions(const SyncFlags& flags) {
  Result<ctl::ControllerClientOptions> made = ControllerClientOptionsFrom(flags.connection);
  if (!made.ok()) return made.status();
  ctl::ControllerClientOptions options = std::move(made).value();
  options.limits.stream.max_record_bytes = uint64_t{flags.max_record_mib} << 20;
  return options;
}

ctl::StreamClientOptions ClientOptions(const SyncFlags& flags) {
  ctl::StreamClientOptions options;
  options.connect_timeout_ms = static_cast<int>(flags.connection.timeout) * 1000;
  options.idle_timeout_ms = std::max(30000, options.connect_timeout_ms);
  options.should_stop = [] { return node::Interrupted(); };
  return options;
}

// The campaign's corpus figures: the first request, which also says clearly when the
// controller cannot be reached or refuses the key.
Result<ctl::CorpusInfoReply> AskCorpusInfo(const SyncFlags& flags, const std::string& build) {
  Result<std::unique_ptr<ctl::ControllerClient>> client = ConnectToController(flags.connection);
  if (!client.ok()) return client.status();
  return (*client)->Call<ctl::CorpusInfoReply>(
      ctl::CorpusInfoRequest{ctl::CampaignRef{flags.campaign, build}},
      static_cast<int>(flags.connection.timeout) * 1000);
}

std::string WithoutTrailingSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string Megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

// Rewrites a sink's cursor every kCursorEveryBytes committed.
class CursorKeeper : public transfer::RecordSink {
 public:
  CursorKeeper(transfer::RecordSink* sink, std::function<Status()> flush)
      : sink_(sink), flush_(std::move(flush)) {}
  Status Commit(std::string_view name, std::string_view data) override {
    if (Status s = sink_->Commit(name, data); !s.ok()) return s;
    unflushed_ += data.size() + name.size();
    if (unflushed_ < kCursorEveryBytes) return Status::Ok();
    unflushed_ = 0;
    return flush_();
  }

 private:
  transfer::RecordSink* sink_;
  std::function<Status()> flush_;
  uint64_t unflushed_ = 0;
};

}  // namespace

int PullCommand(int argc, char** argv) {
  SyncFlags flags;
  FlagParser parser("corpus pull");
  AddSyncFlags(&parser, &flags);
  parser.Add("build", &flags.build, "a build id of the campaign (default: its current build)");
  parser.Add("sync", &flags.sync, "fsync each file written to a directory (survives power loss)");
  parser.Add("from_start", &flags.from_start, "ignore the cursor of an interrupted pull");
  std::vector<std::string> positional;
  if (int parsed = Parse(parser, flags, kPullHelp, argc, argv, &positional); parsed >= 0) {
    return parsed;
  }
  if (positional.size() != 1) return UsageError("pollen corpus pull takes one DIR");
  const std::string dir = WithoutTrailingSlash(positional[0]);
  const std::string cursor_path = dir + ".pollen-pull-" + flags.campaign;

  Result<ctl::CorpusInfoReply> info = AskCorpusInfo(flags, flags.build);
  if (!info.ok()) return UsageError(info.status().message());
  Result<ctl::ControllerClientOptions> client = StreamOptions(flags);
  if (!client.ok()) return UsageError(client.status().message());
  std::string cursor;
  if (!flags.from_start) {
    Result<std::string> read = transfer::ReadResumeCursor(cursor_path);
    if (!read.ok()) return UsageError(read.status().message() + " (or pull with --from-start)");
    cursor = *read;
  }

  // The sink: a store (kept in `store`) or a directory.
  std::unique_ptr<storage::CorpusStore> store;
  std::unique_ptr<transfer::RecordSink> sink;
  std::function<Status()> flush;
  if (IsStore(dir)) {
    Result<storage::CampaignId> campaign = CampaignFor(dir, "");
    if (!campaign.ok()) return UsageError(campaign.status().message());
    Result<std::unique_ptr<storage::CorpusStore>> opened = OpenForWriting(dir, *campaign);
    if (!opened.ok()) return UsageError(opened.status().message());
    store = std::move(opened).value();
    auto* store_sink = new StoreSink(store.get(), "pull:" + flags.campaign, cursor_path);
    sink.reset(store_sink);
    flush = [store_sink] { return store_sink->Flush(); };
  } else {
    transfer::DirectorySinkOptions options;
    options.sync = flags.sync;
    options.cursor_path = cursor_path;
    Result<std::unique_ptr<transfer::DirectorySink>> opened =
        transfer::DirectorySink::Open(dir, options);
    if (!opened.ok()) return UsageError(opened.status().message());
    transfer::DirectorySink* directory = opened->get();
    sink = std::move(opened).value();
    flush = [directory] { return directory->Flush(); };
  }
  CursorKeeper keeper(sink.get(), flush);

  node::InstallInterruptHandler();
  Progress progress("pull");
  const uint64_t total = cursor.empty() ? info->pull_entries : 0;  // unknown when resuming
  const std::string resource = ctl::CorpusResource(flags.campaign, flags.build);
  Result<transfer::TransferCounters> pulled = ctl::PullStream(
      *client, resource, cursor, &keeper,
      [&](const transfer::TransferCounters& c) { progress.Update("inputs", c.records, total); },
      ClientOptions(flags));
  progress.Finish();
  const Status flushed = flush();
  sink.reset();  // writes the cursor one last time
  if (!pulled.ok()) {
    std::fprintf(stderr,
                 "ERROR: %s\npull of %s stopped; what was received is kept: run the same command "
                 "again to resume\n",
                 pulled.status().message().c_str(), resource.c_str());
    return node::Interrupted() ? kExitInterrupted : kExitUsage;
  }
  if (!flushed.ok()) return UsageError(flushed.message());
  std::error_code ec;
  fs::remove(cursor_path, ec);  // complete: the next pull starts from the beginning
  std::printf("pulled %lu inputs (%s) of campaign %s build %s into %s%s\n",
              static_cast<unsigned long>(pulled->records), Megabytes(pulled->record_bytes).c_str(),
              info->name.c_str(), info->build_id.c_str(), dir.c_str(),
              cursor.empty() ? "" : (" (resumed after " + cursor + ")").c_str());
  return kExitOk;
}

int PushCommand(int argc, char** argv) {
  SyncFlags flags;
  FlagParser parser("corpus push");
  AddSyncFlags(&parser, &flags);
  std::vector<std::string> positional;
  if (int parsed = Parse(parser, flags, kPushHelp, argc, argv, &positional); parsed >= 0) {
    return parsed;
  }
  Result<ctl::CorpusInfoReply> info = AskCorpusInfo(flags, "");
  if (!info.ok()) return UsageError(info.status().message());
  Result<ctl::ControllerClientOptions> client = StreamOptions(flags);
  if (!client.ok()) return UsageError(client.status().message());
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  node::InstallInterruptHandler();

  for (const std::string& arg : positional) {
    const std::string dir = WithoutTrailingSlash(arg);
    std::error_code ec;
    const std::string absolute = fs::absolute(dir, ec).lexically_normal().string();
    const std::string push_id = ctl::PushIdFor(std::string(host) + ":" + absolute);
    std::unique_ptr<storage::CorpusStore> store;
    if (IsStore(dir)) {
      Result<std::unique_ptr<storage::CorpusStore>> opened = OpenForInspection(dir);
      if (!opened.ok()) return UsageError(opened.status().message());
      store = std::move(opened).value();
    }
    size_t total = 0;
    const ctl::PushSourceOpener open =
        [&](const std::string& resume_after) -> Result<std::unique_ptr<transfer::RecordSource>> {
      if (store) {
        auto source = StoreSource::Open(store.get(), resume_after);
        if (!source.ok()) return source.status();
        total = (*source)->remaining();
        return std::unique_ptr<transfer::RecordSource>(std::move(source).value());
      }
      auto source = transfer::DirectorySource::Open(dir, resume_after, client->limits.stream);
      if (!source.ok()) return source.status();
      total = (*source)->remaining();
      return std::unique_ptr<transfer::RecordSource>(std::move(source).value());
    };
    Progress progress("push");
    Result<ctl::PushResult> pushed = ctl::PushStream(
        *client, ctl::CampaignRef{flags.campaign, ""}, push_id, open,
        [&](const transfer::TransferCounters& c) { progress.Update(dir, c.records, total); },
        ClientOptions(flags));
    progress.Finish();
    if (!pushed.ok()) {
      std::fprintf(stderr,
                   "ERROR: %s\npush of %s stopped; what the controller received is kept: run "
                   "the same command again to resume\n",
                   pushed.status().message().c_str(), dir.c_str());
      return node::Interrupted() ? kExitInterrupted : kExitUsage;
    }
    std::printf(
        "pushed %lu inputs (%s) from %s%s\n", static_cast<unsigned long>(pushed->counters.records),
        Megabytes(pushed->counters.record_bytes).c_str(), dir.c_str(),
        pushed->resumed_after.empty() ? ""
                                      : (" (resumed after " + pushed->resumed_after + ")").c_str());
  }
  Result<ctl::CorpusInfoReply> after = AskCorpusInfo(flags, "");
  if (after.ok()) {
    std::printf(
        "campaign %s now has %lu pushed inputs; its nodes pick them up at their next "
        "heartbeat\n",
        flags.campaign.c_str(), static_cast<unsigned long>(after->pushed_entries));
  }
  return kExitOk;
}

}  // namespace pollen::cli
