// What a logged call's two pointer arguments are worth to input-to-state (the compiler pass,
// compiler/routine_log_pass.cc; the runtime's hook, engine/runtime/routine_hook.cc): reading
// them without faulting, and deciding which bytes form the pair recorded in the cmp table.
#ifndef POLLEN_ENGINE_ROUTINE_OPERANDS_H_
#define POLLEN_ENGINE_ROUTINE_OPERANDS_H_

#include <cstddef>
#include <cstdint>

namespace pollen::engine {

// Copies up to n bytes from p, which may point anywhere (an argument of unknown meaning),
// into out: as many leading bytes as are mapped and readable; returns how many (0 for a
// null-page or unmapped pointer). One system call (process_vm_readv on this process).
size_t CopyMapped(const void* p, size_t n, uint8_t* out);

// The length of the NUL-terminated text at the start of bytes[0, n), or 0 when it is not one:
// printable ASCII (and tab, CR, LF) only, at least two characters, its NUL within n.
size_t TextLength(const uint8_t* bytes, size_t n);

// How many bytes of `other` (got of them readable) stand for the token compared with the
// literal `text` (of length text_len, from TextLength): the run of letters, digits and '_' at
// its start when the literal starts with one (at least 1), else as many as the literal has.
size_t TokenLength(const uint8_t* other, size_t got, const uint8_t* text, size_t text_len);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_ROUTINE_OPERANDS_H_
