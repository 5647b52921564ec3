// Fuzzes storage/record_codec.h's decoders with what a corrupt or hostile store could hold.
//
// The codec promises canonical encodings (minimal varints, no trailing bytes): whenever a
// decode succeeds, re-encoding the result must give back exactly the input. Anything else
// aborts, as does any crash under ASan/UBSan.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "storage/record_codec.h"

namespace {

[[noreturn]] void NotCanonical(const char* record, std::string_view input,
                               const std::string& reencoded) {
  std::fprintf(stderr,
               "record_codec_fuzzer: %s decoded from %zu bytes re-encodes to %zu "
               "different bytes: the encoding is not canonical\n",
               record, input.size(), reencoded.size());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  pollen::Result<pollen::storage::EntryMeta> meta = pollen::storage::DecodeEntryMeta(input);
  if (meta.ok()) {
    std::string reencoded = pollen::storage::EncodeEntryMeta(*meta);
    if (reencoded != input) NotCanonical("EntryMeta", input, reencoded);
  } else if (meta.status().message().empty()) {
    std::fprintf(stderr, "record_codec_fuzzer: EntryMeta error without a message\n");
    std::abort();
  }

  pollen::Result<pollen::storage::CrashRecord> crash = pollen::storage::DecodeCrashRecord(input);
  if (crash.ok()) {
    std::string reencoded = pollen::storage::EncodeCrashRecord(*crash);
    if (reencoded != input) NotCanonical("CrashRecord", input, reencoded);
  } else if (crash.status().message().empty()) {
    std::fprintf(stderr, "record_codec_fuzzer: CrashRecord error without a message\n");
    std::abort();
  }
  return 0;
}
