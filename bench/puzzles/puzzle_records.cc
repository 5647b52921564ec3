// Class 2, count fields: "RECS" | count (1 byte) | count records, each length (1 byte) |
// that many bytes. The records must use up the input exactly and the count must match.
// A record's first byte is its kind; the bug needs six records whose kinds spell
// "POLLEN" in order, each at least three bytes long. Adding a record means inserting a
// whole record and fixing the count.
#include <cstring>

#include "puzzle_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5 || size > 512) return 0;
  if (std::memcmp(data, "RECS", 4) != 0) return 0;
  size_t count = data[4];
  const uint8_t* kinds[32];
  size_t lens[32];
  size_t at = 5, seen = 0;
  while (at < size) {
    if (seen == 32) return 0;
    size_t len = data[at];
    if (len == 0 || len > size - at - 1) return 0;
    kinds[seen] = data + at + 1;
    lens[seen] = len;
    seen++;
    at += 1 + len;
  }
  if (seen != count) return 0;
  static const char kWord[] = "POLLEN";
  size_t good = 0;
  while (good < seen && good < 6 && lens[good] >= 3 && kinds[good][0] == kWord[good]) good++;
  [[maybe_unused]] static volatile size_t progress;
  switch (good) {  // each step its own branch, so a fuzzer sees the progress
    case 6:
      puzzle::Crash();
      break;
    case 5:
      progress = 5;
      break;
    case 4:
      progress = 4;
      break;
    case 3:
      progress = 3;
      break;
    case 2:
      progress = 2;
      break;
    case 1:
      progress = 1;
      break;
    default:
      break;
  }
  return 0;
}
