// The names of what the controller streams (docs/controller.md, "Streams"): resources, the
// thing a stream open asks for, and the record names inside them.
//
//   corpus/<campaign>           the merged corpus of the campaign's current build, and every
//   corpus/<campaign>/<build>   pushed input: records named by the SHA-1 of their bytes (40
//                               lowercase hex digits, as libFuzzer names corpus files)
//   entries/<campaign>          the same records as corpus/, each with its features:
//   entries/<campaign>/<build>  for nodes of that build joining the campaign (the data is an
//                               entry record, below: the features, then the input)
//   pushed/<campaign>           the inputs pushed to the campaign, in push order: records
//                               named <16 hex digits of the push sequence number>-<SHA-1>,
//                               so that names ascend as inputs are pushed and a node's
//                               cursor stays valid for good
//   build/<campaign>            the campaign's assigned build (pushBuild): one record, named
//                               by the target, the executable; pulled by the nodes that
//                               follow the campaign's builds (`pollen node --follow-builds`)
//   crash/<campaign>/<signature>  one crash of the campaign's current build: the records
//                               "input" (its smallest reproducer) and "report"; a node's
//                               crash push goes the other way under the same name
//
// Thread-safe pure functions.
#ifndef POLLEN_CONTROLLER_CLIENT_RECORD_NAMES_H_
#define POLLEN_CONTROLLER_CLIENT_RECORD_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"

namespace pollen::controller {

// "corpus/<campaign>" (current build) or "corpus/<campaign>/<build>".
std::string CorpusResource(const std::string& campaign, const std::string& build_id = "");
// "entries/<campaign>" (current build) or "entries/<campaign>/<build>".
std::string EntriesResource(const std::string& campaign, const std::string& build_id = "");
// "pushed/<campaign>".
std::string PushedResource(const std::string& campaign);
// "build/<campaign>".
std::string BuildResource(const std::string& campaign);
// "crash/<campaign>/<signature>".
std::string CrashResource(const std::string& campaign, const std::string& signature);

// "reports/<campaign>" (every night), "reports/<campaign>/<night>" or ".../latest".
std::string ReportsResource(const std::string& campaign, const std::string& night = "");

struct ParsedResource {
  enum class Kind { kCorpus, kEntries, kPushed, kCrash, kReports, kBuild } kind = Kind::kCorpus;
  CampaignRef campaign;   // build id empty for kPushed, kCrash, kReports and kBuild, or the
                          // current build
  std::string signature;  // kCrash only
  std::string night;      // kReports: a night, "latest", or "" for all
};

// Parses a resource of the forms above; the names are checked (controller/client/safe_name.h).
// Errors say what is wrong and list the forms.
Result<ParsedResource> ParseResource(std::string_view resource);

// The record name of pushed entry `seq` (>= 1): 16 hex digits, '-', the SHA-1 in hex.
std::string PushedRecordName(uint64_t seq, const base::Digest& hash);
// Its parts, or false when `name` is not such a name.
bool ParsePushedRecordName(std::string_view name, uint64_t* seq, base::Digest* hash);
// The cursor to resume a pull of pushed/<campaign> after entry `seq` (0: from the first):
// it sorts after the name of every entry up to `seq` and before those that follow.
std::string PushedCursorAfter(uint64_t seq);

// The data of a record of entries/: a u32 (little-endian) byte count of the features, the
// features (ascending ids, delta-LEB128: net/feature_codec.h), then the input. A pushed
// input has no features (count 0): it must be run to learn them.
void EncodeEntryRecord(const std::vector<uint32_t>& features, std::string_view input,
                       std::string* out);
// Its parts; `input` points into `data`. Errors: too short, or features that are not a valid
// encoding of at most max_features ids.
Status DecodeEntryRecord(std::string_view data, size_t max_features,
                         std::vector<uint32_t>* features, std::string_view* input);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_RECORD_NAMES_H_
