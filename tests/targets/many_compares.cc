// A target without state whose inputs have more value-profile features than program ones,
// for the drift test (tests/drift_test.cc): 48 comparisons of a two-byte word, none of them a
// branch (with the profile on, each site climbs two ladders), and a handful of edges.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  volatile unsigned sink = 0;
  const unsigned w = static_cast<unsigned>(data[0]) | static_cast<unsigned>(data[1]) << 8;
  // clang-format off
#define CMP(n) sink = sink + (w == 0x1000u + (n) * 37u)
  CMP(0);  CMP(1);  CMP(2);  CMP(3);  CMP(4);  CMP(5);  CMP(6);  CMP(7);
  CMP(8);  CMP(9);  CMP(10); CMP(11); CMP(12); CMP(13); CMP(14); CMP(15);
  CMP(16); CMP(17); CMP(18); CMP(19); CMP(20); CMP(21); CMP(22); CMP(23);
  CMP(24); CMP(25); CMP(26); CMP(27); CMP(28); CMP(29); CMP(30); CMP(31);
  CMP(32); CMP(33); CMP(34); CMP(35); CMP(36); CMP(37); CMP(38); CMP(39);
  CMP(40); CMP(41); CMP(42); CMP(43); CMP(44); CMP(45); CMP(46); CMP(47);
#undef CMP
  // clang-format on
  return 0;
}
