// Test target for the input-to-state stage (engine/i2s_stage.h, tests/i2s_stage_test.cc): a
// 4-byte magic at offset 40, compared once, then buried under 600 other comparisons of
// values derived from it, at the same site. The mutations' cmp table (engine/cmp_table.h:
// 64 integer slots chosen by the values, and one slot per site) has long overwritten the
// magic's pair by the end of a run; the stage's log keeps every pair. With a seed of 64 equal
// bytes, the field's value is also at offsets 0 to 39, which value search tries first (4 places per
// needle): colorization (engine/colorize.h) is what finds offset 40.
// Built with MAGIC_OWN_SITE (early_magic_fuzzer), the magic is compared inline at a site of its
// own, before the loop: the table's section by site keeps its pair through the 600 others, so
// the mutations find it without the stage.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

uint32_t Mix(uint32_t i) {
  i ^= i >> 15;
  i *= 0x2c1b3c6du;
  i ^= i >> 12;
  return i | 1u;
}

// Out of line, so that the loop below is neither vectorized nor folded: one instrumented
// comparison per iteration, at the magic's own site.
__attribute__((noinline)) bool Equal(uint32_t a, uint32_t b) { return a == b; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 44) return 0;
  uint32_t x;
  std::memcpy(&x, data + 40, 4);
#ifdef MAGIC_OWN_SITE
  if (x == 0x1badb002u) __builtin_trap();
#else
  if (Equal(x, 0x1badb002u)) __builtin_trap();
#endif
  int hits = 0;
  for (uint32_t i = 0; i < 600; i++) {
    if (Equal(x + i, Mix(i))) hits++;
  }
  return hits > 1000 ? 1 : 0;
}
