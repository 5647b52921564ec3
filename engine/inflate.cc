#include "engine/inflate.h"

#include <cstring>

namespace pollen::engine {
namespace {

constexpr int kMaxBits = 15;       // the longest code
constexpr int kLitLenCodes = 288;  // 286 used, 288 in the fixed code
constexpr int kDistCodes = 32;     // 30 used, 32 in the fixed code

// Lengths 3 to 258 (codes 257 to 285) and distances 1 to 32768 (codes 0 to 29): the base of
// each code and the extra bits read after it.
constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                    33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                    6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order in which a dynamic block gives the lengths of the code-length code.
constexpr uint8_t kCodeLengthOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                          11, 4,  12, 3, 13, 2, 14, 1, 15};

class BitReader {
 public:
  BitReader(const uint8_t* in, size_t size) : in_(in), size_(size) {}

  // The next n bits (n <= 16), first bit lowest; false past the end.
  bool Bits(int n, uint32_t* v) {
    while (count_ < n) {
      if (pos_ == size_) {
        exhausted_ = true;
        return false;
      }
      acc_ |= uint32_t{in_[pos_++]} << count_;
      count_ += 8;
    }
    *v = acc_ & ((1u << n) - 1);
    acc_ >>= n;
    count_ -= n;
    return true;
  }

  // Drops the bits left of the current byte (before a stored block).
  void AlignToByte() {
    acc_ = 0;
    count_ = 0;
  }

  // Copies n bytes, after AlignToByte; past the end, copies what there is and returns how
  // much that was.
  size_t Copy(uint8_t* out, size_t n) {
    if (size_ - pos_ < n) {
      exhausted_ = true;
      n = size_ - pos_;
    }
    if (n > 0) std::memcpy(out, in_ + pos_, n);
    pos_ += n;
    return n;
  }

  // Bytes taken so far, whole: the last one counts even when only some of its bits were.
  size_t used() const { return pos_; }
  // Whether a read failed for want of input.
  bool exhausted() const { return exhausted_; }

 private:
  const uint8_t* in_;
  size_t size_;
  size_t pos_ = 0;
  uint32_t acc_ = 0;
  int count_ = 0;
  bool exhausted_ = false;
};

// A canonical Huffman code: how many codes each length has, and the symbols in code order.
struct Code {
  uint16_t count[kMaxBits + 1];
  uint16_t symbol[kLitLenCodes];

  // From the code length of each of n symbols (0: unused). False when the lengths give more
  // codes than there are bit patterns, or fewer (an incomplete code) unless there is no code
  // at all or one code of one bit: zlib's rule, so that both read the same streams. The
  // code-length code (`lengths_code`) may be empty but never incomplete otherwise.
  bool Build(const uint8_t* lengths, int n, bool lengths_code) {
    std::memset(count, 0, sizeof(count));
    for (int s = 0; s < n; s++) count[lengths[s]]++;
    int left = 1, longest = 0;
    for (int len = 1; len <= kMaxBits; len++) {
      left = left * 2 - count[len];
      if (left < 0) return false;
      if (count[len] != 0) longest = len;
    }
    if (left > 0 && longest != 0 && (lengths_code || longest != 1)) return false;
    uint16_t offset[kMaxBits + 1];
    offset[1] = 0;
    for (int len = 1; len < kMaxBits; len++) offset[len + 1] = offset[len] + count[len];
    for (int s = 0; s < n; s++) {
      if (lengths[s] != 0) symbol[offset[lengths[s]]++] = static_cast<uint16_t>(s);
    }
    return true;
  }

  // Reads one symbol; -1 at the end of the input or on a pattern the code does not have.
  int Decode(BitReader& bits) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= kMaxBits; len++) {
      uint32_t bit;
      if (!bits.Bits(1, &bit)) return -1;
      code |= static_cast<int>(bit);
      int n = count[len];
      if (code - first < n) return symbol[index + code - first];
      index += n;
      first = (first + n) << 1;
      code <<= 1;
    }
    return -1;
  }
};

class Inflater {
 public:
  Inflater(const uint8_t* in, size_t size, uint8_t* out, size_t cap)
      : bits_(in, size), out_(out), cap_(cap) {}

  bool Run(Inflated* result) {
    bool ok = true;
    for (uint32_t last = 0; ok && last == 0;) {
      uint32_t type;
      ok = bits_.Bits(1, &last) && bits_.Bits(2, &type);
      if (ok) ok = type == 0 ? Stored() : type == 1 ? Fixed() : type == 2 ? Dynamic() : false;
    }
    *result = Inflated{bits_.used(), written_, !ok && bits_.exhausted()};
    return ok;
  }

 private:
  bool Stored() {
    bits_.AlignToByte();
    uint32_t len, nlen;
    if (!bits_.Bits(16, &len) || !bits_.Bits(16, &nlen) || (len ^ 0xffff) != nlen) return false;
    if (cap_ - written_ < len) return false;
    size_t copied = bits_.Copy(out_ + written_, len);
    written_ += copied;  // a block cut short still gives its bytes as content
    return copied == len;
  }

  bool Fixed() {
    uint8_t lengths[kLitLenCodes + kDistCodes];
    for (int s = 0; s < kLitLenCodes; s++) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    for (int s = 0; s < kDistCodes; s++) lengths[kLitLenCodes + s] = 5;
    return lit_len_.Build(lengths, kLitLenCodes, false) &&
           dist_.Build(lengths + kLitLenCodes, kDistCodes, false) && Codes();
  }

  bool Dynamic() {
    uint32_t hlit, hdist, hclen;
    if (!bits_.Bits(5, &hlit) || !bits_.Bits(5, &hdist) || !bits_.Bits(4, &hclen)) return false;
    int nlen = static_cast<int>(hlit) + 257, ndist = static_cast<int>(hdist) + 1;
    if (nlen > 286 || ndist > 30) return false;
    uint8_t lengths[kLitLenCodes + kDistCodes] = {};
    for (uint32_t i = 0; i < hclen + 4; i++) {
      uint32_t v;
      if (!bits_.Bits(3, &v)) return false;
      lengths[kCodeLengthOrder[i]] = static_cast<uint8_t>(v);
    }
    Code code_lengths;
    if (!code_lengths.Build(lengths, 19, true)) return false;
    std::memset(lengths, 0, sizeof(lengths));
    for (int i = 0; i < nlen + ndist;) {
      int sym = code_lengths.Decode(bits_);
      if (sym < 0) return false;
      if (sym < 16) {
        lengths[i++] = static_cast<uint8_t>(sym);
        continue;
      }
      uint8_t value = 0;
      uint32_t repeat;
      if (sym == 16) {  // the previous length, 3 to 6 times
        if (i == 0 || !bits_.Bits(2, &repeat)) return false;
        value = lengths[i - 1];
        repeat += 3;
      } else if (sym == 17) {  // zeros, 3 to 10
        if (!bits_.Bits(3, &repeat)) return false;
        repeat += 3;
      } else {  // zeros, 11 to 138
        if (!bits_.Bits(7, &repeat)) return false;
        repeat += 11;
      }
      if (i + static_cast<int>(repeat) > nlen + ndist) return false;
      while (repeat-- > 0) lengths[i++] = value;
    }
    if (lengths[256] == 0) return false;  // no end-of-block code
    // The distances' lengths follow the literals' in `lengths`; move them to their own slot.
    uint8_t dist_lengths[kDistCodes] = {};
    std::memcpy(dist_lengths, lengths + nlen, static_cast<size_t>(ndist));
    return lit_len_.Build(lengths, nlen, false) && dist_.Build(dist_lengths, ndist, false) &&
           Codes();
  }

  // The literals, lengths and distances of one block, up to its end-of-block code.
  bool Codes() {
    for (;;) {
      int sym = lit_len_.Decode(bits_);
      if (sym < 0) return false;
      if (sym < 256) {
        if (written_ == cap_) return false;
        out_[written_++] = static_cast<uint8_t>(sym);
        continue;
      }
      if (sym == 256) return true;
      sym -= 257;
      if (sym >= 29) return false;
      uint32_t extra, dextra;
      if (!bits_.Bits(kLengthExtra[sym], &extra)) return false;
      size_t len = kLengthBase[sym] + extra;
      int dsym = dist_.Decode(bits_);
      if (dsym < 0 || dsym >= 30 || !bits_.Bits(kDistExtra[dsym], &dextra)) return false;
      size_t dist = kDistBase[dsym] + dextra;
      if (dist > written_ || cap_ - written_ < len) return false;
      // Byte by byte: the copy may overlap what it writes (a run of the last bytes).
      for (size_t k = 0; k < len; k++, written_++) out_[written_] = out_[written_ - dist];
    }
  }

  BitReader bits_;
  uint8_t* out_;
  size_t cap_;
  size_t written_ = 0;
  Code lit_len_;
  Code dist_;
};

}  // namespace

bool InflateRaw(const uint8_t* in, size_t size, uint8_t* out, size_t out_cap, Inflated* result) {
  Inflater inflater(in, size, out, out_cap);
  return inflater.Run(result);
}

uint32_t Adler32(uint32_t adler, const uint8_t* data, size_t n) {
  constexpr uint32_t kMod = 65521;
  // 5552 bytes is the most that can be summed before b needs a reduction (zlib's NMAX).
  constexpr size_t kBlock = 5552;
  uint32_t a = adler & 0xffff, b = adler >> 16;
  while (n > 0) {
    size_t k = n < kBlock ? n : kBlock;
    n -= k;
    while (k-- > 0) {
      a += *data++;
      b += a;
    }
    a %= kMod;
    b %= kMod;
  }
  return (b << 16) | a;
}

}  // namespace pollen::engine
