#include "engine/zlib_stream.h"

#include <algorithm>
#include <cstring>

#include "engine/inflate.h"

namespace pollen::engine {
namespace {

constexpr size_t kMaxStored = 65535;  // content bytes per stored block

void PutLe16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

}  // namespace

bool IsZlibHeader(uint8_t cmf, uint8_t flg) {
  return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && (flg & 0x20) == 0 &&
         ((uint32_t{cmf} << 8) | flg) % 31 == 0;
}

bool InflateZlibAt(const uint8_t* data, size_t begin, size_t limit, uint8_t* out, size_t out_cap,
                   ZlibStream* stream) {
  if (limit < begin + 3 || !IsZlibHeader(data[begin], data[begin + 1])) return false;
  Inflated r;
  bool whole = InflateRaw(data + begin + 2, limit - begin - 2, out, out_cap, &r);
  if (whole && limit - begin - 2 - r.used >= 4) {
    *stream = ZlibStream{begin, begin + 2 + r.used + 4, r.written, false};
    return true;
  }
  // Cut short, or whole without room for its check bytes.
  if (!(whole || r.cut) || r.written == 0) return false;
  *stream = ZlibStream{begin, limit, r.written, true};
  return true;
}

size_t StoredZlibSize(size_t n) {
  size_t blocks = std::max<size_t>(1, (n + kMaxStored - 1) / kMaxStored);
  return 2 + 5 * blocks + n + 4;
}

size_t StoredZlibLimit(size_t room) {
  // With b blocks the content fits in min(b * kMaxStored, room - 6 - 5b) bytes, and needs b
  // blocks only above (b - 1) * kMaxStored.
  size_t best = 0;
  for (size_t b = 1; 6 + 5 * b <= room; b++) {
    size_t n = std::min(b * kMaxStored, room - 6 - 5 * b);
    if (b > 1 && n <= (b - 1) * kMaxStored) break;
    best = n;
  }
  return best;
}

size_t WriteStoredZlib(const uint8_t* in, size_t n, uint8_t* out) {
  size_t o = 0;
  out[o++] = 0x78;  // deflate, a 32-KB window
  out[o++] = 0x01;  // the fastest level, no dictionary: 0x7801 is a multiple of 31
  size_t at = 0;
  do {
    size_t len = std::min(n - at, kMaxStored);
    out[o++] = at + len == n ? 1 : 0;  // BFINAL on the last, BTYPE 00: stored
    PutLe16(out + o, static_cast<uint32_t>(len));
    PutLe16(out + o + 2, static_cast<uint32_t>(~len & 0xffff));
    o += 4;
    if (len > 0) std::memcpy(out + o, in + at, len);
    o += len;
    at += len;
  } while (at < n);
  uint32_t check = Adler32(1, in, n);
  for (int k = 3; k >= 0; k--) out[o++] = static_cast<uint8_t>(check >> (8 * k));
  return o;
}

}  // namespace pollen::engine
