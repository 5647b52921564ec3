// Test target for the switch hook (tests/cmp_hooks_test.cc): a 32-bit tag read from the input
// selects one of 48 far-apart cases, and the crash is behind the one in the middle. No
// comparison but the switch sees the tag, so only the pairs __sanitizer_cov_trace_switch
// records (the tag against the nearest case above it, and against the first case) get there:
// each case reached is new coverage and brings the next case above it within one step.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

volatile uint32_t g_sink;

__attribute__((noinline)) void Reached(uint32_t which) { g_sink = g_sink + which; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t tag;
  std::memcpy(&tag, data, 4);
  switch (tag) {
    case 0x10000000u:
      Reached(0);
      break;
    case 0x13050709u:
      Reached(1);
      break;
    case 0x160a0e12u:
      Reached(2);
      break;
    case 0x190f151bu:
      Reached(3);
      break;
    case 0x1c141c24u:
      Reached(4);
      break;
    case 0x1f19232du:
      Reached(5);
      break;
    case 0x221e2a36u:
      Reached(6);
      break;
    case 0x2523313fu:
      Reached(7);
      break;
    case 0x28283848u:
      Reached(8);
      break;
    case 0x2b2d3f51u:
      Reached(9);
      break;
    case 0x2e32465au:
      Reached(10);
      break;
    case 0x31374d63u:
      Reached(11);
      break;
    case 0x343c546cu:
      Reached(12);
      break;
    case 0x37415b75u:
      Reached(13);
      break;
    case 0x3a46627eu:
      Reached(14);
      break;
    case 0x3d4b6987u:
      Reached(15);
      break;
    case 0x40507090u:
      Reached(16);
      break;
    case 0x43557799u:
      Reached(17);
      break;
    case 0x465a7ea2u:
      Reached(18);
      break;
    case 0x495f85abu:
      Reached(19);
      break;
    case 0x4c648cb4u:
      Reached(20);
      break;
    case 0x4f6993bdu:
      Reached(21);
      break;
    case 0x526e9ac6u:
      Reached(22);
      break;
    case 0x5573a1cfu:
      Reached(23);
      break;
    case 0x5878a8d8u:  // the 25th case
      __builtin_trap();
    case 0x5b7dafe1u:
      Reached(25);
      break;
    case 0x5e82b6eau:
      Reached(26);
      break;
    case 0x6187bdf3u:
      Reached(27);
      break;
    case 0x648cc4fcu:
      Reached(28);
      break;
    case 0x6791cc05u:
      Reached(29);
      break;
    case 0x6a96d30eu:
      Reached(30);
      break;
    case 0x6d9bda17u:
      Reached(31);
      break;
    case 0x70a0e120u:
      Reached(32);
      break;
    case 0x73a5e829u:
      Reached(33);
      break;
    case 0x76aaef32u:
      Reached(34);
      break;
    case 0x79aff63bu:
      Reached(35);
      break;
    case 0x7cb4fd44u:
      Reached(36);
      break;
    case 0x7fba044du:
      Reached(37);
      break;
    case 0x82bf0b56u:
      Reached(38);
      break;
    case 0x85c4125fu:
      Reached(39);
      break;
    case 0x88c91968u:
      Reached(40);
      break;
    case 0x8bce2071u:
      Reached(41);
      break;
    case 0x8ed3277au:
      Reached(42);
      break;
    case 0x91d82e83u:
      Reached(43);
      break;
    case 0x94dd358cu:
      Reached(44);
      break;
    case 0x97e23c95u:
      Reached(45);
      break;
    case 0x9ae7439eu:
      Reached(46);
      break;
    case 0x9dec4aa7u:
      Reached(47);
      break;
  }
  return 0;
}
