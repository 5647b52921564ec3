#include "base/sha1.h"

#include <bit>
#include <cstring>

#include "base/hex.h"
#include "base/sha1_blocks.h"

namespace pollen::base {
namespace {

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Processes one 64-byte block (FIPS 180-4 §6.1.2 steps 1-4).
void Compress(uint32_t h[5], const uint8_t* block) {
  uint32_t w[80];
  for (int t = 0; t < 16; t++) w[t] = LoadBigEndian32(block + 4 * t);
  for (int t = 16; t < 80; t++) w[t] = std::rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; t++) {
    uint32_t f, k;
    if (t < 20) {
      f = (b & c) ^ (~b & d);  // Ch
      k = 0x5a827999;
    } else if (t < 40) {
      f = b ^ c ^ d;  // Parity
      k = 0x6ed9eba1;
    } else if (t < 60) {
      f = (b & c) ^ (b & d) ^ (c & d);  // Maj
      k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d;
      k = 0xca62c1d6;
    }
    uint32_t temp = std::rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = std::rotl(b, 30);
    b = a;
    a = temp;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

using BlocksFn = void (*)(uint32_t h[5], const uint8_t* data, size_t blocks);

BlocksFn ChooseBlocks() { return Sha1ExtensionsAvailable() ? Sha1BlocksShaNi : Sha1BlocksPortable; }

}  // namespace

void Sha1BlocksPortable(uint32_t h[5], const uint8_t* data, size_t blocks) {
  for (size_t i = 0; i < blocks; i++) Compress(h, data + 64 * i);
}

Digest Sha1(const uint8_t* data, size_t n) {
  uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  static const BlocksFn blocks = ChooseBlocks();
  const size_t full = n / 64 * 64;
  if (full != 0) blocks(h, data, full / 64);

  // Padding (§5.1.1): 0x80, zeros, then the message length in bits as 64-bit big endian.
  uint8_t tail[128] = {};
  size_t rest = n - full;
  if (rest != 0) std::memcpy(tail, data + full, rest);
  tail[rest] = 0x80;
  size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(n) * 8;
  for (int i = 0; i < 8; i++) tail[tail_len - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
  blocks(h, tail, tail_len / 64);

  std::array<uint8_t, 20> out;
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 4; j++) out[4 * i + j] = static_cast<uint8_t>(h[i] >> (24 - 8 * j));
  }
  return out;
}

std::string Sha1Hex(const uint8_t* data, size_t n) {
  std::array<uint8_t, 20> d = Sha1(data, n);
  return ToHex(d.data(), d.size());
}

std::string BuildIdOf(const uint8_t* data, size_t n) { return Sha1Hex(data, n).substr(0, 16); }

}  // namespace pollen::base
