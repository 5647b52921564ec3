// zlib streams inside an input (PNG's IDAT, iCCP, zTXt and iTXt chunks, PDF's FlateDecode
// streams, git objects, HTTP and WebSocket deflate bodies), for the mutation that changes
// what they decompress to (engine/mutate_compressed.cc). A byte mutation of compressed bytes
// almost always breaks the stream or makes garbage of its content, and the inflater that
// would tell is seldom instrumented (a target links the system's zlib), so coverage gives no
// way in.
//
// Streams are written back as stored blocks: the content then sits in the input as it is,
// where every other mutation (input-to-state among them) changes it directly as long as it
// keeps the size.
#ifndef POLLEN_ENGINE_ZLIB_STREAM_H_
#define POLLEN_ENGINE_ZLIB_STREAM_H_

#include <cstddef>
#include <cstdint>

namespace pollen::engine {

struct ZlibStream {
  size_t begin = 0;    // the header's first byte
  size_t end = 0;      // past the Adler-32; for a cut stream, the limit it was read to
  size_t decoded = 0;  // bytes it inflates to (a cut stream: before the cut)
  bool cut = false;    // the data ran out before the stream's end
};

// Whether cmf, flg (a stream's first two bytes) are a zlib header: deflate, a window of at
// most 32 KB, no preset dictionary, and the check bits right.
bool IsZlibHeader(uint8_t cmf, uint8_t flg);

// Inflates the zlib stream whose header is at data[begin], reading nothing at or past
// data[limit], into at most `out_cap` bytes of `out`. True for a whole stream (its four
// check bytes before the limit; the Adler-32 is not verified: targets often ignore it, and
// libpng's fuzz harness does) and for one cut short by the limit after some content (a
// parser that reads as it inflates, as libpng does for an iCCP profile's header, still takes
// it; end is then the limit, as for a whole one whose check bytes the limit cuts off).
// Allocates nothing (engine/inflate.h).
bool InflateZlibAt(const uint8_t* data, size_t begin, size_t limit, uint8_t* out, size_t out_cap,
                   ZlibStream* stream);

// The size of data of `n` bytes as a zlib stream of stored blocks.
size_t StoredZlibSize(size_t n);

// The largest content whose stored stream fits in `room` bytes (0 also when none does: an
// empty content needs 11).
size_t StoredZlibLimit(size_t room);

// Writes in[0, n) as a zlib stream of stored blocks into out (StoredZlibSize(n) bytes) and
// returns its size.
size_t WriteStoredZlib(const uint8_t* in, size_t n, uint8_t* out);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_ZLIB_STREAM_H_
