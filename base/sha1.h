// SHA-1 (FIPS 180-4 §6.1), to name corpus and crash files by content like libFuzzer does.
//
// Not for security: SHA-1 is broken against deliberate collisions. It is used here only
// because libFuzzer names files by it, so corpora stay interchangeable.
#ifndef POLLEN_BASE_SHA1_H_
#define POLLEN_BASE_SHA1_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/digest.h"

namespace pollen::base {

// The 20-byte SHA-1 digest of data[0, n). data may be null when n == 0. Thread-safe.
Digest Sha1(const uint8_t* data, size_t n);

// The digest of data[0, n) as 40 lowercase hex digits (libFuzzer's file names).
std::string Sha1Hex(const uint8_t* data, size_t n);

// A build id: the first 16 hex digits of the SHA-1 of an executable's bytes (what nodes,
// the controller and the nightly call a build).
std::string BuildIdOf(const uint8_t* data, size_t n);

}  // namespace pollen::base

#endif  // POLLEN_BASE_SHA1_H_
