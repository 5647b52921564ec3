#include "engine/elf_section.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/scoped_fd.h"

namespace pollen::engine {
namespace {

// Section names longer than this are not ours to find.
constexpr size_t kMaxNameLength = 256;

}  // namespace

Result<std::optional<std::vector<uint8_t>>> ReadElfSection(const ReadAt& read,
                                                           std::string_view name, size_t max_size) {
  Elf64_Ehdr eh;
  if (!read(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return Status::Error("not an ELF file");
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return Status::Error("not a 64-bit little-endian ELF file");
  }
  if (eh.e_shoff == 0 || eh.e_shnum == 0)
    return std::optional<std::vector<uint8_t>>();  // stripped of them
  if (eh.e_shentsize != sizeof(Elf64_Shdr))
    return Status::Error("ELF section headers of an unknown size");
  // e_shnum is 16 bits: at most 65535 headers to look at (the extended numbering of files
  // with more, in section 0's sh_size, is not followed: no program has that many).
  uint32_t count = eh.e_shnum;
  uint32_t names_index = eh.e_shstrndx;
  // Offsets computed from the file's fields must not wrap around: a wrapped offset could
  // land inside the file and read the wrong bytes.
  auto header = [&](uint32_t i, Elf64_Shdr* out) {
    uint64_t offset;
    if (__builtin_add_overflow(eh.e_shoff, uint64_t{i} * sizeof(Elf64_Shdr), &offset)) return false;
    return read(offset, out, sizeof *out);
  };
  Elf64_Shdr names;
  if (names_index == SHN_UNDEF || names_index >= count || !header(names_index, &names)) {
    return Status::Error("ELF section names out of the file");
  }
  std::vector<char> name_buf(name.size() + 1);
  for (uint32_t i = 0; i < count; i++) {
    Elf64_Shdr sh;
    if (!header(i, &sh))
      return Status::Error("ELF section header " + std::to_string(i) + " out of the file");
    // The name must be `name` followed by its NUL, inside the names section.
    if (name.size() >= kMaxNameLength || sh.sh_name >= names.sh_size ||
        names.sh_size - sh.sh_name < name_buf.size()) {
      continue;
    }
    uint64_t name_offset;
    if (__builtin_add_overflow(names.sh_offset, uint64_t{sh.sh_name}, &name_offset) ||
        !read(name_offset, name_buf.data(), name_buf.size())) {
      continue;
    }
    if (std::memcmp(name_buf.data(), name.data(), name.size()) != 0 ||
        name_buf[name.size()] != '\0') {
      continue;
    }
    if (sh.sh_type == SHT_NOBITS)
      return std::optional<std::vector<uint8_t>>(std::vector<uint8_t>());
    if (sh.sh_size > max_size) {
      return Status::Error("ELF section " + std::string(name) + " is larger than " +
                           std::to_string(max_size) + " bytes");
    }
    std::vector<uint8_t> data(sh.sh_size);
    if (!data.empty() && !read(sh.sh_offset, data.data(), data.size())) {
      return Status::Error("ELF section " + std::string(name) + " out of the file");
    }
    return std::optional<std::vector<uint8_t>>(std::move(data));
  }
  return std::optional<std::vector<uint8_t>>();
}

Result<std::optional<std::vector<uint8_t>>> ReadElfSectionFile(const std::string& path,
                                                               std::string_view name,
                                                               size_t max_size) {
  base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Status::Error("cannot read '" + path + "': " + base::ErrnoText(errno));
  auto read = [&](uint64_t offset, void* out, size_t size) {
    auto* p = static_cast<uint8_t*>(out);
    while (size > 0) {
      ssize_t n = ::pread(fd.get(), p, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      offset += static_cast<uint64_t>(n);
      size -= static_cast<size_t>(n);
    }
    return true;
  };
  auto section = ReadElfSection(read, name, max_size);
  if (!section.ok()) return Status::Error(path + ": " + section.status().message());
  return section;
}

}  // namespace pollen::engine
