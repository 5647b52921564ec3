// Test target with coverage to find and no bug: classifies the bytes of a small record.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int score = 0;
  for (size_t i = 0; i < size && i < 16; i++) {
    uint8_t c = data[i];
    if (c >= '0' && c <= '9') {
      score += 1;
    } else if (c >= 'a' && c <= 'z') {
      score += 2;
    } else if (c >= 'A' && c <= 'Z') {
      score += 3;
    } else if (c == ' ') {
      score += 4;
    } else if (c < 32) {
      score += 5;
    }
    if (i == 3 && c == ':') score *= 2;
    if (i == 7 && c == '=') score *= 3;
  }
  if (score > 20) score /= 2;
  if (score > 40) score /= 3;
  return score == 1234567 ? 1 : 0;
}
