// pollen corpus SUBCOMMAND ...: inspect and maintain a corpus store; pull and push a
// campaign's corpus (cli/corpus_sync_command.cc).
//
// One function per subcommand; CorpusCommand only dispatches. The store is given either as
// its own directory or as a work directory of `pollen fuzz` (which keeps it in "corpus/").
#include <inttypes.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/corpus_common.h"
#include "cli/corpus_sync_command.h"
#include "cli/flag_parser.h"
#include "cli/json_output.h"
#include "cli/target_setup.h"
#include "storage/corpus_store.h"
#include "storage/store_inspect.h"

namespace pollen::cli {
namespace {

namespace fs = std::filesystem;

const char kCorpusUsage[] =
    "Usage: pollen corpus SUBCOMMAND STORE_OR_WORKDIR [args] [flags]\n"
    "\n"
    "Inspects and maintains a corpus store, and moves corpora to and from the controller.\n"
    "STORE_OR_WORKDIR is a store directory or a work directory of `pollen fuzz` (such as\n"
    ".pollen/TARGET), whose store is its corpus/.\n"
    "\n"
    "Subcommands:\n"
    "  stats STORE_OR_WORKDIR            entries, sizes, compression, crashes, target, build\n"
    "  ls STORE_OR_WORKDIR [--crashes]   one line per entry (or per crash)\n"
    "  import STORE_OR_WORKDIR DIR...    add the files of each DIR to the store\n"
    "  export STORE_OR_WORKDIR DIR       write each entry as a file into DIR\n"
    "  merge STORE_OR_WORKDIR SOURCE...  merge other corpora into the store\n"
    "  compact STORE_OR_WORKDIR          drop superseded entries and compact the files\n"
    "  pull --campaign=NAME DIR          a campaign's corpus from the controller into DIR\n"
    "  push --campaign=NAME DIR...       seeds and regression inputs to a campaign's nodes\n"
    "\n"
    "stats and ls open the store read-only: they work while `pollen fuzz` writes it, and\n"
    "show what it had written when they started.\n"
    "`pollen corpus SUBCOMMAND --help` describes each subcommand.\n";

int StatsCommand(int argc, char** argv) {
  FlagParser parser("corpus stats");
  bool json = false;
  parser.Add("json", &json, "print JSON (docs/usage.md)");
  std::vector<std::string> positional;
  const int parsed = ParseSubcommand(
      parser, argc, argv,
      "Usage: pollen corpus stats STORE_OR_WORKDIR\n\n"
      "Prints the store's entries, their total size, the bytes its files take on disk and\n"
      "in SST files (entries still in the write-ahead log are not compressed yet), the\n"
      "compression ratio (raw bytes / SST bytes), the distinct crashes, and the target and\n"
      "build the store was recorded for.\n",
      1, 1, &positional);
  if (parsed >= 0) return parsed;
  Result<std::unique_ptr<storage::CorpusStore>> store = OpenForInspection(positional[0]);
  if (!store.ok()) return UsageError(store.status().message());
  const storage::CorpusStore& s = *store.value();
  Result<storage::CorpusStore::Stats> stats = s.GetStats();
  if (!stats.ok()) return UsageError(stats.status().message());

  uint64_t files_bytes = 0;  // everything in the directory: SST files, WAL, manifest
  std::error_code ec;
  // A writer may delete a file meanwhile: a file that vanishes counts as 0 bytes.
  for (fs::directory_iterator it(s.path(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      const uintmax_t size = it->file_size(size_ec);
      if (!size_ec) files_bytes += size;
    }
  }
  if (ec) return UsageError("cannot list corpus store directory " + s.path() + ": " + ec.message());

  if (json) {
    PrintJson(
        StoreStatsJson({s.path(), s.campaign().target, s.stored_build_id(), files_bytes, *stats}));
    return kExitOk;
  }
  std::printf("store:         %s\n", s.path().c_str());
  std::printf("target:        %s\n", s.campaign().target.c_str());
  std::printf("build id:      %s\n", s.stored_build_id().c_str());
  std::printf("entries:       %" PRIu64 "\n", stats->entries);
  std::printf("raw bytes:     %" PRIu64 "\n", stats->raw_bytes);
  std::printf("bytes on disk: %" PRIu64 " (%" PRIu64 " in SST files: %" PRIu64 " inputs, %" PRIu64
              " features and other metadata)\n",
              files_bytes, stats->disk_bytes, stats->input_disk_bytes,
              stats->disk_bytes - std::min(stats->disk_bytes, stats->input_disk_bytes));
  if (stats->disk_bytes > 0) {
    // The whole store carries two keys and a feature list per entry; the inputs column
    // family is the corpus itself (docs/decisions.md, "What 'bytes on disk' counts").
    std::printf("compression:   %.2f (raw bytes / SST bytes); inputs alone %.2f\n",
                static_cast<double>(stats->raw_bytes) / static_cast<double>(stats->disk_bytes),
                stats->input_disk_bytes == 0 ? 0.0
                                             : static_cast<double>(stats->raw_bytes) /
                                                   static_cast<double>(stats->input_disk_bytes));
  } else {
    std::printf("compression:   n/a (no SST file yet)\n");
  }
  std::printf("crashes:       %" PRIu64 "\n", stats->crashes);
  return kExitOk;
}

int LsCommand(int argc, char** argv) {
  bool crashes = false;
  bool times = false;
  FlagParser parser("corpus ls");
  parser.Add("crashes", &crashes, "list the crashes instead of the entries");
  parser.Add("times", &times, "add when each entry joined the store (milliseconds since 1970)");
  std::vector<std::string> positional;
  const int parsed = ParseSubcommand(
      parser, argc, argv,
      "Usage: pollen corpus ls STORE_OR_WORKDIR [--crashes] [--times]\n\n"
      "Prints one line per entry, in hash order: hash, size in bytes, number of features,\n"
      "origin (`local`, a mutator, `seed`, or `peer:NODE` for one a node got from another),\n"
      "and with --times when the entry joined this store, in milliseconds since 1970 (the\n"
      "earliest, for an entry merged from several stores). With --crashes, one line per\n"
      "distinct crash: signature, kind, times seen, size of the smallest input.\n\nFlags:\n",
      1, 1, &positional);
  if (parsed >= 0) return parsed;
  Result<std::unique_ptr<storage::CorpusStore>> store = OpenForInspection(positional[0]);
  if (!store.ok()) return UsageError(store.status().message());
  Status listed;
  if (crashes) {
    listed =
        store.value()->ForEachCrash([](std::string_view signature, const storage::CrashRecord& r) {
          std::printf("%.*s %s %" PRIu64 " %zu\n", static_cast<int>(signature.size()),
                      signature.data(), r.kind.c_str(), r.count, r.input.size());
          return true;
        });
  } else {
    listed = store.value()->ForEachEntry([times](std::string_view hash,
                                                 const storage::EntryMeta& meta) {
      std::printf("%.*s %" PRIu64 " %zu %s", static_cast<int>(hash.size()), hash.data(), meta.size,
                  meta.features.size(), meta.origin.empty() ? "-" : meta.origin.c_str());
      if (times) std::printf(" %" PRId64, meta.first_seen_unix_ms);
      std::printf("\n");
      return true;
    });
  }
  if (!listed.ok()) return UsageError(listed.message());
  return kExitOk;
}

}  // namespace

int CorpusCommand(int argc, char** argv) {
  if (argc < 1) {
    std::fprintf(stderr, "ERROR: pollen corpus needs a subcommand\n\n%s", kCorpusUsage);
    return kExitUsage;
  }
  const std::string_view subcommand = argv[0];
  if (subcommand == "--help" || subcommand == "-h" || subcommand == "help") {
    std::printf("%s", kCorpusUsage);
    return kExitOk;
  }
  struct Subcommand {
    std::string_view name;
    int (*run)(int argc, char** argv);
  };
  static constexpr Subcommand kSubcommands[] = {
      {"stats", StatsCommand},   {"ls", LsCommand},       {"import", ImportCommand},
      {"export", ExportCommand}, {"merge", MergeCommand}, {"compact", CompactCommand},
      {"pull", PullCommand},     {"push", PushCommand},
  };
  for (const Subcommand& s : kSubcommands) {
    if (s.name == subcommand) return s.run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "ERROR: unknown corpus subcommand '%s'\n\n%s", argv[0], kCorpusUsage);
  return kExitUsage;
}

}  // namespace pollen::cli
