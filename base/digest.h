// A content digest: the SHA-1 (base/sha1.h) that names corpus entries and crashes everywhere
// in Pollen. 20 raw bytes in memory and on the wire; hex only at the edges (file names, logs,
// the CLI), through DigestHex and ParseDigestHex.
#ifndef POLLEN_BASE_DIGEST_H_
#define POLLEN_BASE_DIGEST_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace pollen::base {

using Digest = std::array<uint8_t, 20>;

// For hash tables keyed by a digest: its first 8 bytes (a SHA-1's bytes are already uniform).
struct DigestHasher {
  size_t operator()(const Digest& d) const {
    size_t v;
    static_assert(sizeof(v) <= sizeof(Digest));
    std::memcpy(&v, d.data(), sizeof(v));
    return v;
  }
};

using DigestSet = std::unordered_set<Digest, DigestHasher>;

// 40 lowercase hex digits (libFuzzer's file names).
std::string DigestHex(const Digest& d);

// The digest that 40 hex digits (either case) spell; nullopt for anything else.
std::optional<Digest> ParseDigestHex(std::string_view hex);

}  // namespace pollen::base

#endif  // POLLEN_BASE_DIGEST_H_
