// Fuzzes engine/inflate.h's InflateRaw, which runs inside every fuzz target on its inputs
// (the Zlib mutation, engine/mutate_compressed.cc).
//
// Input: byte 0 sets the output's room (byte * 64 bytes), the rest is raw deflate data.
// Checks, beyond "no crash under ASan/UBSan": what is accepted fits in the room and in the
// input; and its content, written back as a zlib stream of stored blocks
// (engine/zlib_stream.h), is read back whole, the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/inflate.h"
#include "engine/zlib_stream.h"

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "inflate_fuzzer: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pollen::engine;
  if (size < 1) return 0;
  const size_t room = size_t{data[0]} * 64;
  std::vector<uint8_t> out(room + 1);
  Inflated r;
  if (!InflateRaw(data + 1, size - 1, out.data(), room, &r)) return 0;
  if (r.written > room) Fail("wrote past its room");
  if (r.used > size - 1 || (r.used == 0 && size > 1)) Fail("used more input than it had");
  std::vector<uint8_t> stored(StoredZlibSize(r.written));
  if (WriteStoredZlib(out.data(), r.written, stored.data()) != stored.size()) Fail("stored size");
  std::vector<uint8_t> back(r.written + 1);
  ZlibStream s;
  if (!InflateZlibAt(stored.data(), 0, stored.size(), back.data(), back.size(), &s) || s.cut) {
    Fail("the stored stream is not read whole");
  }
  if (s.begin != 0 || s.end != stored.size() || s.decoded != r.written) Fail("stored bounds");
  if (r.written > 0 && std::memcmp(back.data(), out.data(), r.written) != 0) Fail("stored bytes");
  return 0;
}
