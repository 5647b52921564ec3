// A deflate decoder (RFC 1951) into one flat buffer, for the zlib streams that mutations
// look into (engine/zlib_stream.h). It runs inside fuzz targets, on their inputs: it
// allocates nothing, keeps no state between calls, and reads nothing outside the bytes
// given, whatever they hold. The whole output stays in `out`, so back-references read it
// there and no window is kept. Codes are decoded a bit at a time (canonical Huffman codes
// as the RFC defines them): slower than zlib's tables, fast enough for the few kilobytes of
// a fuzz input.
#ifndef POLLEN_ENGINE_INFLATE_H_
#define POLLEN_ENGINE_INFLATE_H_

#include <cstddef>
#include <cstdint>

namespace pollen::engine {

struct Inflated {
  size_t used = 0;     // input bytes the deflate data took, up to its last block's end
  size_t written = 0;  // bytes of output (on false: what was decoded before the failure)
  bool cut = false;    // on false: the data ran out, so what was written is content
};

// Decodes the raw deflate data at in[0, size) into out[0, out_cap). False when the data is
// not deflate, is cut short (result->cut), or decodes to more than out_cap bytes.
bool InflateRaw(const uint8_t* in, size_t size, uint8_t* out, size_t out_cap, Inflated* result);

// zlib's Adler-32 of data[0, n), continuing from `adler` (1 to start).
uint32_t Adler32(uint32_t adler, const uint8_t* data, size_t n);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_INFLATE_H_
