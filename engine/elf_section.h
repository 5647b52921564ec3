// One named section of an ELF file (64-bit, little-endian: what clang builds on x86-64 and
// arm64), read through a callback so that a large binary is never read whole and a fuzzer
// can hand in bytes from memory.
#ifndef POLLEN_ENGINE_ELF_SECTION_H_
#define POLLEN_ENGINE_ELF_SECTION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace pollen::engine {

// Reads `size` bytes at `offset` into `out`; false when the file is shorter or unreadable.
// Must check the range itself (offset + size may exceed the file, or overflow).
using ReadAt = std::function<bool(uint64_t offset, void* out, size_t size)>;

// The contents of the section called `name` (its file bytes; empty for SHT_NOBITS), or
// nullopt when the file is an ELF file without it. An error when the file is no 64-bit
// little-endian ELF file or its headers point outside it; never reads more than
// `max_size` bytes of section data (a larger section is an error).
Result<std::optional<std::vector<uint8_t>>> ReadElfSection(const ReadAt& read,
                                                           std::string_view name, size_t max_size);

// The same, from the file at `path`.
Result<std::optional<std::vector<uint8_t>>> ReadElfSectionFile(const std::string& path,
                                                               std::string_view name,
                                                               size_t max_size);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_ELF_SECTION_H_
