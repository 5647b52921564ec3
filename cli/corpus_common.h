// What the `pollen corpus` subcommands share: finding and opening a store, parsing a
// subcommand's arguments, showing progress.
#ifndef POLLEN_CLI_CORPUS_COMMON_H_
#define POLLEN_CLI_CORPUS_COMMON_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/flag_parser.h"
#include "storage/corpus_store.h"

namespace pollen::cli {

// The store directory that `path` names: `path` itself when it holds a database (or is
// not a work directory), else its corpus/ subdirectory.
std::string StoreDirOf(const std::string& path);

// Whether `path` names a store (a database, or a work directory holding one).
bool IsStore(const std::string& path);

// Opens the store of `path` read-only, for whatever campaign it records.
Result<std::unique_ptr<storage::CorpusStore>> OpenForInspection(const std::string& path);

// The campaign to open the store of `path` as a writer: the target binary's (name and build
// id) when `target` is given, else the one the existing store records.
Result<storage::CampaignId> CampaignFor(const std::string& path, const std::string& target);

// Opens (creating if needed) the store of `path` for writing.
Result<std::unique_ptr<storage::CorpusStore>> OpenForWriting(const std::string& path,
                                                             const storage::CampaignId& campaign);

// Parses a subcommand's flags and checks it got [min, max] positional arguments. Returns -1
// to go on, or the exit code after printing the help or the error.
int ParseSubcommand(FlagParser& parser, int argc, char** argv, const char* help_text,
                    size_t min_positional, size_t max_positional,
                    std::vector<std::string>* positional);

// A progress line on stderr for long operations: rewritten in place on a terminal, a new
// line every 10 % elsewhere; at most four updates a second; nothing at all during the first
// second, so quick operations stay quiet.
class Progress {
 public:
  explicit Progress(std::string what);
  void Update(std::string_view phase, uint64_t done, uint64_t total);
  void Finish();

 private:
  std::string what_;
  uint64_t start_ms_;
  uint64_t last_ms_ = 0;
  uint64_t last_tenth_ = UINT64_MAX;
  std::string last_phase_;
  bool drawn_ = false;
};

int ImportCommand(int argc, char** argv);
int ExportCommand(int argc, char** argv);
int MergeCommand(int argc, char** argv);
int CompactCommand(int argc, char** argv);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_CORPUS_COMMON_H_
