// A target whose inputs are encoded (each byte xor-ed with a key that depends on its
// position), with a structure-aware mutator that decodes, mutates the payload with
// LLVMFuzzerMutate and encodes again: libFuzzer's custom-mutator contract. The bug needs the
// payload to start with "POLLEN!!", which the memcmp shows decoded; Pollen's byte mutators
// write that into the encoded bytes, where it means nothing, and the custom mutator writes
// it into the payload. Built with -DNO_CUSTOM_MUTATOR, the same target without the hooks.
//
// With POLLEN_TEST_NO_BUG set, the bug is disarmed. With POLLEN_TEST_HOOK_LOG set, each hook
// appends one line to that file the first time it runs in a process (so the test sees that they
// ran, and LLVMFuzzerMutate did something).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

uint8_t Key(size_t i) { return static_cast<uint8_t>(0x5A + 31 * i); }

void Code(uint8_t* data, size_t size) {  // its own inverse
  for (size_t i = 0; i < size; i++) data[i] ^= Key(i);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8 || size > 64) return 0;
  uint8_t payload[64];
  std::memcpy(payload, data, size);
  Code(payload, size);
  static const bool armed = std::getenv("POLLEN_TEST_NO_BUG") == nullptr;
  if (armed && std::memcmp(payload, "POLLEN!!", 8) == 0) {
    volatile int* p = nullptr;
    *p = 1;
  }
  return 0;
}

#ifndef NO_CUSTOM_MUTATOR
namespace {

void LogOnce(bool* done, const char* line) {
  if (*done) return;
  *done = true;
  const char* path = std::getenv("POLLEN_TEST_HOOK_LOG");
  if (path == nullptr) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line);
    std::fclose(f);
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  static bool logged = false, mutated = false;
  LogOnce(&logged, "custom mutator");
  (void)seed;  // the randomness is LLVMFuzzerMutate's, which draws from Pollen's chain
  Code(data, size);
  uint8_t before[64];
  size_t old_size = size < sizeof(before) ? size : sizeof(before);
  std::memcpy(before, data, old_size);
  size = LLVMFuzzerMutate(data, size, max_size);
  if (size != old_size || std::memcmp(before, data, old_size) != 0)
    LogOnce(&mutated, "LLVMFuzzerMutate");
  Code(data, size);
  return size;
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  static bool logged = false;
  LogOnce(&logged, "custom crossover");
  // The first half of one payload, then the second half of the other, encoded again.
  size_t head = size1 / 2, tail = size2 - size2 / 2;
  if (head + tail > max_out_size || head + tail == 0) return 0;
  uint8_t a[4096], b[4096];
  if (size1 > sizeof(a) || size2 > sizeof(b)) return 0;
  std::memcpy(a, data1, size1);
  std::memcpy(b, data2, size2);
  Code(a, size1);
  Code(b, size2);
  std::memcpy(out, a, head);
  std::memcpy(out + head, b + size2 / 2, tail);
  Code(out, head + tail);
  (void)seed;
  return head + tail;
}
#endif
