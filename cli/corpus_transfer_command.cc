// pollen corpus import|export: between a store and libFuzzer, AFL++ or Go corpus directories.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/clock.h"
#include "base/sha1.h"
#include "cli/commands.h"
#include "cli/corpus_common.h"
#include "cli/target_setup.h"
#include "storage/corpus_formats.h"

namespace pollen::cli {
namespace {

// The format named by --format, or the one `dir` looks like for "auto".
Result<storage::CorpusFormat> FormatFor(const std::string& flag, const std::string& dir) {
  if (flag.empty() || flag == "auto") return storage::DetectCorpusFormat(dir);
  return storage::ParseCorpusFormat(flag);
}

}  // namespace

int ImportCommand(int argc, char** argv) {
  std::string format = "auto", target;
  FlagParser parser("corpus import");
  parser.Add("format", &format, "auto, libfuzzer, afl or go");
  parser.Add("target", &target, "target binary: creates the store for it if there is none");
  std::vector<std::string> positional;
  int parsed = ParseSubcommand(
      parser, argc, argv,
      "Usage: pollen corpus import STORE_OR_WORKDIR DIR... [--format=F] [--target=BINARY]\n\n"
      "Adds every input of each DIR (a libFuzzer directory, an AFL++ output or queue\n"
      "directory, or Go's testdata/fuzz/FuzzX directory) to the store, without features:\n"
      "the next `pollen fuzz` runs them once to learn their coverage, and `pollen corpus\n"
      "merge` keeps only those that add some. Inputs already in the store are skipped.\n\nFlags:\n",
      2, SIZE_MAX, &positional);
  if (parsed >= 0) return parsed;
  auto campaign = CampaignFor(positional[0], target);
  if (!campaign.ok()) return UsageError(campaign.status().message());
  auto store = OpenForWriting(positional[0], campaign.value());
  if (!store.ok()) return UsageError(store.status().message());
  uint64_t added = 0, present = 0, bytes = 0;
  Progress progress("import");
  for (size_t i = 1; i < positional.size(); i++) {
    const std::string& dir = positional[i];
    auto fmt = FormatFor(format, dir);
    if (!fmt.ok()) return UsageError(fmt.status().message());
    Status st =
        storage::ReadCorpusDir(dir, fmt.value(), [&](std::string_view, std::vector<uint8_t> data) {
          std::string hash = base::Sha1Hex(data.data(), data.size());
          if (store.value()->HasEntry(hash)) {
            present++;
          } else {
            storage::EntryMeta meta;
            meta.size = data.size();
            meta.origin = "import:" + dir;
            meta.first_seen_unix_ms = base::UnixMs();
            Status put = store.value()->PutEntry(hash, data.data(), data.size(), meta);
            if (!put.ok()) return put;
            added++;
            bytes += data.size();
          }
          progress.Update(dir, added + present, 0);
          return Status::Ok();
        });
    if (!st.ok()) {
      progress.Finish();
      return UsageError(st.message());
    }
  }
  progress.Finish();
  Status flushed = store.value()->Flush();
  if (!flushed.ok()) return UsageError(flushed.message());
  std::printf("imported %lu inputs (%lu bytes); %lu were already in the store\n",
              static_cast<unsigned long>(added), static_cast<unsigned long>(bytes),
              static_cast<unsigned long>(present));
  return kExitOk;
}

int ExportCommand(int argc, char** argv) {
  std::string format = "libfuzzer";
  FlagParser parser("corpus export");
  parser.Add("format", &format, "libfuzzer, afl or go");
  std::vector<std::string> positional;
  int parsed = ParseSubcommand(
      parser, argc, argv,
      "Usage: pollen corpus export STORE_OR_WORKDIR DIR [--format=F]\n\n"
      "Writes every entry of the store as a file into DIR (created if needed): named by its\n"
      "SHA-1 for libFuzzer, id:NNNNNN,src:pollen for AFL++ (give the queue directory or\n"
      "AFL's -i directory), a `go test fuzz v1` file for Go. Files already there are kept.\n"
      "Works while `pollen fuzz` writes the store (read-only).\n\nFlags:\n",
      2, 2, &positional);
  if (parsed >= 0) return parsed;
  auto fmt = storage::ParseCorpusFormat(format);
  if (!fmt.ok()) return UsageError(fmt.status().message());
  auto store = OpenForInspection(positional[0]);
  if (!store.ok()) return UsageError(store.status().message());
  std::vector<std::string> hashes;
  Status listed =
      store.value()->ForEachEntry([&](std::string_view hash, const storage::EntryMeta&) {
        hashes.emplace_back(hash);
        return true;
      });
  if (!listed.ok()) return UsageError(listed.message());
  Progress progress("export");
  uint64_t bytes = 0;
  for (size_t i = 0; i < hashes.size(); i++) {
    auto data = store.value()->GetInput(hashes[i]);
    if (!data.ok()) return UsageError(data.status().message());
    Status written =
        storage::WriteCorpusFile(positional[1], fmt.value(), data->data(), data->size(), i);
    if (!written.ok()) return UsageError(written.message());
    bytes += data->size();
    progress.Update("entries", i + 1, hashes.size());
  }
  progress.Finish();
  std::printf("exported %zu entries (%lu bytes) to %s as %s files\n", hashes.size(),
              static_cast<unsigned long>(bytes), positional[1].c_str(),
              std::string(storage::CorpusFormatName(fmt.value())).c_str());
  return kExitOk;
}

}  // namespace pollen::cli
