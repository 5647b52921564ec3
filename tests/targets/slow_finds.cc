// Test target whose every run takes 20 ms and whose coverage needs 64 bytes or more: a hash
// of all the bytes chooses one of eight edges, so nearly every candidate of a find's
// minimization (a byte made printable, a byte removed) loses the find's edge, and its
// minimization runs hundreds of candidates, seconds at 20 ms each: what a new input that
// decodes a long stream costs on a real target (libsndfile).
#include <unistd.h>

#include <cstddef>
#include <cstdint>

static volatile uint32_t sink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  usleep(20000);
  if (size < 64) return 0;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  // Each bucket stores something of its own, so that none merges with another.
  switch ((h >> 13) & 7) {
    case 0:
      sink = 1;
      break;
    case 1:
      sink = size;
      break;
    case 2:
      sink = data[1];
      break;
    case 3:
      sink = h;
      break;
    case 4:
      sink = data[2];
      break;
    case 5:
      sink = size * 3;
      break;
    case 6:
      sink = data[3] + 1u;
      break;
    default:
      sink = 0;
      break;
  }
  return 0;
}
