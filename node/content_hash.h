// Content hashes in their two spellings: the corpus names entries by 40 lowercase hex
// digits (libFuzzer's file names), cluster messages carry the 20 bytes (broker::Hash).
#ifndef POLLEN_NODE_CONTENT_HASH_H_
#define POLLEN_NODE_CONTENT_HASH_H_

#include <optional>
#include <string>
#include <string_view>

#include "broker/cluster_message.h"

namespace pollen::node {

// 40 lowercase hex digits.
std::string HashToHex(const broker::Hash& hash);

// The hash that 40 hex digits (either case) spell; nullopt for anything else.
std::optional<broker::Hash> HashFromHex(std::string_view hex);

}  // namespace pollen::node

#endif  // POLLEN_NODE_CONTENT_HASH_H_
