#include "base/sha1_blocks.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace pollen::base {

#if defined(__x86_64__)

namespace {

#define POLLEN_SHA_TARGET __attribute__((target("sha,ssse3,sse4.1")))

// The state between groups of four rounds. The SHA instructions keep a, b, c, d in one
// register with a in the highest lane, and want the message words W[t..t+3] the same way
// (W[t] highest); the e of a group rides in the highest lane of the words added to it.
struct Lanes {
  __m128i abcd;
  __m128i w[4];      // W of the next four groups: w[k % 4] holds group k's words
  __m128i e_plus_w;  // e + W of the group about to run
};

// Four rounds of group k (0..19) with round function F (k / 5), then prepares group k + 1:
// its e is a of this group's start rotated by 30 (sha1nexte), and from group 4 on its words
// come from the schedule W[t] = rotl(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1), four at a
// time (sha1msg1 the W[t-16] ^ W[t-14] part, an xor the W[t-8] part, sha1msg2 the rest).
template <int F>
POLLEN_SHA_TARGET inline void Group(Lanes& s, int k) {
  const __m128i abcd_start = s.abcd;
  s.abcd = _mm_sha1rnds4_epu32(s.abcd, s.e_plus_w, F);
  if (k + 1 < 20) {
    __m128i& next = s.w[(k + 1) % 4];
    if (k + 1 >= 4) {
      // next holds W4[k - 3]; W4[k + 1] from W4[k - 3], W4[k - 2], W4[k - 1] and W4[k].
      next = _mm_sha1msg1_epu32(next, s.w[(k + 2) % 4]);
      next = _mm_xor_si128(next, s.w[(k + 3) % 4]);
      next = _mm_sha1msg2_epu32(next, s.w[k % 4]);
    }
    s.e_plus_w = _mm_sha1nexte_epu32(abcd_start, next);
  } else {
    s.e_plus_w = abcd_start;  // the final e is derived from it by the caller
  }
}

template <int F>
POLLEN_SHA_TARGET inline void FiveGroups(Lanes& s) {
  for (int j = 0; j < 5; j++) Group<F>(s, F * 5 + j);
}

}  // namespace

bool Sha1ExtensionsAvailable() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool ssse3 = (ecx & bit_SSSE3) != 0, sse41 = (ecx & bit_SSE4_1) != 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool sha = (ebx & bit_SHA) != 0;
  return ssse3 && sse41 && sha;
}

POLLEN_SHA_TARGET void Sha1BlocksShaNi(uint32_t h[5], const uint8_t* data, size_t blocks) {
  // Reverses the 16 bytes: big-endian words, W[t] into the highest lane.
  const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)), 0x1b);
  __m128i e = _mm_set_epi32(static_cast<int>(h[4]), 0, 0, 0);
  for (size_t b = 0; b < blocks; b++, data += 64) {
    Lanes s;
    s.abcd = abcd;
    for (int i = 0; i < 4; i++) {
      s.w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i)),
                                reverse);
    }
    s.e_plus_w = _mm_add_epi32(e, s.w[0]);
    FiveGroups<0>(s);
    FiveGroups<1>(s);
    FiveGroups<2>(s);
    FiveGroups<3>(s);
    // e after 80 rounds is a at the start of the last group rotated by 30: add it to e.
    e = _mm_sha1nexte_epu32(s.e_plus_w, e);
    abcd = _mm_add_epi32(abcd, s.abcd);
  }
  abcd = _mm_shuffle_epi32(abcd, 0x1b);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), abcd);
  h[4] = static_cast<uint32_t>(_mm_extract_epi32(e, 3));
}

#undef POLLEN_SHA_TARGET

#else  // not x86-64

bool Sha1ExtensionsAvailable() { return false; }

void Sha1BlocksShaNi(uint32_t h[5], const uint8_t* data, size_t blocks) {
  Sha1BlocksPortable(h, data, blocks);
}

#endif

}  // namespace pollen::base
