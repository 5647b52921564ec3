// __pollen_trace_routine, the runtime's half of Pollen's optional compiler pass
// (compiler/routine_log_pass.cc): the first four pointer arguments of a call of the target's
// (null for those it does not have).
//
// When one of them is a literal of the program (inside the executable's image) that reads as
// a short text, and another is not in the image, the pair goes to the cmp table like a
// strcmp's: the literal whole, and from the other pointer the token there
// (engine/routine_operands.h). So SameWord(token, n, "select") lets input-to-state replace
// the token by "select", and XmlNameMatchesAscii(enc, ptr, end, KW_DOCTYPE) the name at ptr
// by "DOCTYPE". Nothing else is recorded (two literals, only buffers, literals that are not
// text): a call's pointers are more often structures than strings, and junk pairs would
// crowd the table's 32 word slots.
//
// Only on the runs whose operands input-to-state reads (the entry's own run: worker.cc sets
// SancovState::log_routines): reading an argument safely costs a system call.
#include <algorithm>
#include <cstdint>

#include "engine/routine_operands.h"
#include "engine/runtime/operand_memory.h"
#include "engine/runtime/sancov_state.h"

extern "C" __attribute__((visibility("default"))) void __pollen_trace_routine(const void* p0,
                                                                              const void* p1,
                                                                              const void* p2,
                                                                              const void* p3) {
  using namespace pollen::runtime;
  using pollen::engine::CopyMapped;
  constexpr size_t kWord = pollen::engine::CmpTable::kMaxWord;
  SancovState& s = GetSancovState();
  if (!s.log_routines || !s.in_target) return;
  const void* args[4] = {p0, p1, p2, p3};
  // The first argument outside the image: the input's side.
  const void* other = nullptr;
  for (const void* p : args) {
    if (p != nullptr && !InImage(p)) {
      other = p;
      break;
    }
  }
  if (other == nullptr) return;
  // The first literal text inside the image. One byte more than a word: a literal of exactly
  // kWord characters still shows its NUL. Mapped is not enough under ASan (a redzone is
  // mapped too): Readable trims.
  uint8_t text[kWord + 1];
  size_t nb = 0;
  for (const void* p : args) {
    if (p == nullptr || !InImage(p)) continue;
    nb = pollen::engine::TextLength(text, Readable(p, CopyMapped(p, sizeof(text), text)));
    if (nb > 0) break;
  }
  if (nb == 0) return;
  uint8_t token[kWord];
  const size_t got = Readable(other, CopyMapped(other, kWord, token));
  const size_t na = pollen::engine::TokenLength(token, got, text, nb);
  if (na == 0) return;
  s.cmp.AddWords(token, na, text, std::min(nb, kWord), /*b_constant=*/true);
  if (s.cmp_log != nullptr) s.cmp_log->AddWords(token, na, text, std::min(nb, kWord), true);
}
