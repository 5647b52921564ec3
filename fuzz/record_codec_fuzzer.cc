// Fuzzes storage/record_codec.h's decoders with what a corrupt or hostile store could hold.
//
// The codec promises canonical encodings (minimal varints, no trailing bytes, v2 slots in
// their one valid form): whenever a decode succeeds, re-encoding the result (in the same
// version, over the same counter table) must give back exactly the input. Anything else
// aborts, as does any crash under ASan/UBSan. EntryMeta v2 records are decoded against two
// fixed tables: id 1 with an odd number of counters (so the unused last slot is exercised),
// id 2 with none.
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

const pollen::storage::CounterTable kTables[] = {
    {1, {0, 1, 2, 5, 9, 100, 4096}},
    {2, {}},
};

const pollen::storage::CounterTable* FindTable(uint64_t id) {
  for (const pollen::storage::CounterTable& table : kTables) {
    if (table.id == id) return &table;
  }
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  pollen::Result<pollen::storage::EntryMeta> meta =
      pollen::storage::DecodeEntryMeta(input, FindTable);
  if (meta.ok()) {
    pollen::Result<uint64_t> table_id = pollen::storage::EntryMetaTableId(input);
    if (!table_id.ok() || (*table_id != 0 && FindTable(*table_id) == nullptr)) {
      std::fprintf(stderr, "record_codec_fuzzer: EntryMeta decodes but its table id does not\n");
      std::abort();
    }
    std::string reencoded = *table_id == 0
                                ? pollen::storage::EncodeEntryMeta(*meta)
                                : pollen::storage::EncodeEntryMeta(*meta, *FindTable(*table_id));
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

  pollen::Result<pollen::storage::CounterTable> table = pollen::storage::DecodeCounterTable(input);
  if (table.ok()) {
    std::string reencoded = pollen::storage::EncodeCounterTable(*table);
    if (reencoded != input) NotCanonical("CounterTable", input, reencoded);
  } else if (table.status().message().empty()) {
    std::fprintf(stderr, "record_codec_fuzzer: CounterTable error without a message\n");
    std::abort();
  }
  return 0;
}
