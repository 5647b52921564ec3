// The SHA-1 compression function over whole 64-byte blocks, in two implementations: portable
// C++ (FIPS 180-4 §6.1.2) and the x86 SHA extensions (SHA-NI: sha1rnds4, sha1nexte,
// sha1msg1, sha1msg2), about four times faster where the CPU has them (docs/benchmarks.md,
// "SHA-1"). base/sha1.h picks one at the first call; tests compare the two.
#ifndef POLLEN_BASE_SHA1_BLOCKS_H_
#define POLLEN_BASE_SHA1_BLOCKS_H_

#include <cstddef>
#include <cstdint>

namespace pollen::base {

// Updates the state h[0..4] with `blocks` 64-byte blocks at data.
void Sha1BlocksPortable(uint32_t h[5], const uint8_t* data, size_t blocks);

// True when this CPU has the SHA extensions (and SSSE3 and SSE4.1, which the code also
// uses); always false off x86-64.
bool Sha1ExtensionsAvailable();

// As Sha1BlocksPortable, with the SHA extensions. Requires Sha1ExtensionsAvailable().
void Sha1BlocksShaNi(uint32_t h[5], const uint8_t* data, size_t blocks);

}  // namespace pollen::base

#endif  // POLLEN_BASE_SHA1_BLOCKS_H_
