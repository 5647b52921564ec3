#include "engine/routine_operands.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

namespace pollen::engine {
namespace {

bool WordChar(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

size_t CopyMapped(const void* p, size_t n, uint8_t* out) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  if (n == 0 || at < 4096) return 0;
  // Two pieces split at the page boundary: process_vm_readv stops at the first piece it
  // cannot read, so a fault in the second page still returns the first.
  const uintptr_t page_end = (at | 4095) + 1;
  const size_t first = std::min<size_t>(n, page_end - at);
  iovec local{out, n};
  iovec remote[2] = {{const_cast<void*>(p), first}, {reinterpret_cast<void*>(page_end), n - first}};
  ssize_t got = process_vm_readv(getpid(), &local, 1, remote, first < n ? 2 : 1, 0);
  return got <= 0 ? 0 : static_cast<size_t>(got);
}

size_t TextLength(const uint8_t* bytes, size_t n) {
  size_t i = 0;
  for (; i < n && bytes[i] != 0; i++) {
    uint8_t c = bytes[i];
    if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\n' && c != '\r') return 0;
  }
  if (i == n || i < 2) return 0;
  return i;
}

size_t TokenLength(const uint8_t* other, size_t got, const uint8_t* text, size_t text_len) {
  if (got == 0) return 0;
  if (text_len == 0 || !WordChar(text[0])) return std::min(text_len, got);
  size_t n = 0;
  while (n < got && WordChar(other[n])) n++;
  return n == 0 ? 1 : n;
}

}  // namespace pollen::engine
