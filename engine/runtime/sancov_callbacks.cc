// The SanitizerCoverage callbacks that clang emits for -fsanitize=fuzzer-no-link
// (inline-8bit-counters, pc-table, trace-cmp, indirect-calls, stack-depth). Every callback
// the compiler may emit is defined here, strongly, so that a target links without any
// sanitizer runtime and so that ours replace the sanitizer runtimes' weak no-ops.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/runtime/operand_memory.h"
#include "engine/runtime/sancov_state.h"

extern "C" void __sanitizer_cov_8bit_counters_init(uint8_t* start, uint8_t* stop);
extern "C" char __executable_start;  // the executable's load address (the linker defines it)

namespace pollen::runtime {

namespace {

// Constant-initialised (no constructor runs), so modules may register before main(), and
// the hooks read it with no guard variable to test first.
constinit SancovState g_state{};

}  // namespace

SancovState& GetSancovState() { return g_state; }

void ClearAllCounters() {
  SancovState& s = GetSancovState();
  for (size_t i = 0; i < s.num_modules; i++) {
    std::memset(s.modules[i].start, 0, static_cast<size_t>(s.modules[i].stop - s.modules[i].start));
  }
  if (s.registered_profile != nullptr) s.registered_profile->Reset();
}

void EnableValueProfile() {
  // The counters only give the profile its indices (value_profile.h): never written.
  alignas(64) static uint8_t counters[engine::ValueProfile::kCounters];
  static engine::ValueProfile profile;
  SancovState& s = GetSancovState();
  if (s.registered_profile != nullptr) return;
  s.value_profile_first = static_cast<uint32_t>(s.num_counters);
  __sanitizer_cov_8bit_counters_init(counters, counters + engine::ValueProfile::kCounters);
  profile.SetPcBase(reinterpret_cast<uintptr_t>(&__executable_start));
  s.registered_profile = &profile;
  s.value_profile = &profile;
  s.value_profile_counters = counters;
}

void SetValueProfileActive(bool active) {
  SancovState& s = GetSancovState();
  if (active) {
    s.value_profile = s.registered_profile;
  } else if (s.value_profile != nullptr) {
    s.value_profile->Reset();
    s.value_profile = nullptr;
  }
}

}  // namespace pollen::runtime

using pollen::runtime::GetSancovState;
using pollen::runtime::SancovState;

#define POLLEN_NO_COVERAGE __attribute__((no_sanitize("coverage"), visibility("default")))

// The comparison's site, for the gate log (cmp_sites.h) and the value profile: the return
// address into the target.
#define CallerPc() reinterpret_cast<uintptr_t>(__builtin_return_address(0))

namespace {

// What an integer comparison hook does besides the table write, when the worker asked for
// it: its call site to the patcher (hook_sites.h), every pair to the stage's log, every comparison
// in order to the colorizing run's sequence, those of non-constant comparisons of 2 bytes or more
// to the site log (gates: a checksum is never compared with a constant), and how close they came to
// the value profile. Out of line, so that the common path needs no stack frame: with it inline,
// every hook saved and restored seven registers, on a path that half of re2's run time goes
// through.
template <uint8_t kSize, bool kConst>
__attribute__((noinline, cold)) void TraceCmpExtras(uintptr_t pc, uint64_t a, uint64_t b) {
  SancovState& s = GetSancovState();
  if (s.hook_sites != nullptr) s.hook_sites->Note(pc);
  if (s.cmp_log != nullptr) s.cmp_log->AddInt(a, b, kSize);
  if (s.cmp_seq != nullptr) s.cmp_seq->Add(pc, a, b, kSize);
  if constexpr (!kConst && kSize >= 2) {
    if (s.sites.mode != 0) s.sites.Record(pc, a, b, kSize);
  }
  // Not one-byte comparisons: a parser's character tests are most of them, a byte is
  // either equal or not, and input-to-state writes any byte the target wanted in one step.
  if constexpr (kSize >= 2) {
    if (s.value_profile != nullptr) s.value_profile->NoteInt(pc, a, b, kSize);
  }
}

// What every integer comparison hook does: the operands go to the cmp table (one-byte ones
// to its one-byte section, wider ones to its window and its section by site), and the rest
// (TraceCmpExtras) only when one of its consumers is on.
template <uint8_t kSize, bool kConst>
__attribute__((always_inline)) inline void TraceCmp(uintptr_t pc, uint64_t a, uint64_t b) {
  SancovState& s = GetSancovState();
  // A const hook's first operand is the constant (SanitizerCoverage's contract). The site is
  // the pc's offset in the image: the same in every run under ASLR, so a seed repeats a run.
  const uintptr_t site = pc - reinterpret_cast<uintptr_t>(&__executable_start);
  if constexpr (kSize == 1) {
    if constexpr (kConst) {
      s.cmp.AddConstByte(site, static_cast<uint8_t>(b), static_cast<uint8_t>(a));
    } else {
      s.cmp.AddSiteByte(site, static_cast<uint8_t>(a), static_cast<uint8_t>(b));
    }
  } else {
    s.cmp.AddSiteInt(site, a, b, kSize);
  }
  bool extras = (s.cmp_log != nullptr) | (s.cmp_seq != nullptr) | (s.hook_sites != nullptr);
  if constexpr (!kConst && kSize >= 2) extras |= s.sites.mode != 0;
  if constexpr (kSize >= 2) extras |= s.value_profile != nullptr;
  if (__builtin_expect(extras, 0)) TraceCmpExtras<kSize, kConst>(pc, a, b);
}

}  // namespace

extern "C" {

// stack-depth instrumentation writes the lowest stack address seen here.
__attribute__((visibility("default"))) thread_local uintptr_t __sancov_lowest_stack;

POLLEN_NO_COVERAGE void __sanitizer_cov_8bit_counters_init(uint8_t* start, uint8_t* stop) {
  auto& s = GetSancovState();
  if (start == stop) return;
  for (size_t i = 0; i < s.num_modules; i++) {
    if (s.modules[i].start == start) return;  // registered twice (dlopen of the same module)
  }
  if (s.num_modules == pollen::runtime::SancovState::kMaxModules) {
    s.too_many_modules = true;
    return;
  }
  s.modules[s.num_modules++] = {start, stop, static_cast<uint32_t>(s.num_counters)};
  s.num_counters += static_cast<uint64_t>(stop - start);
}

POLLEN_NO_COVERAGE void __sanitizer_cov_pcs_init(const uintptr_t* begin, const uintptr_t* end) {
  // Each entry is a (pc, flags) pair.
  GetSancovState().num_pcs += static_cast<uint64_t>(end - begin) / 2;
}

POLLEN_NO_COVERAGE void __sanitizer_cov_trace_pc_indir(uintptr_t) {}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_pc_guard_init(uint32_t*, uint32_t*) {}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_pc_guard(uint32_t*) {}

POLLEN_NO_COVERAGE void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b) {
  TraceCmp<1, false>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b) {
  TraceCmp<1, true>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b) {
  TraceCmp<2, false>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b) {
  TraceCmp<2, true>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b) {
  TraceCmp<4, false>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b) {
  TraceCmp<4, true>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b) {
  TraceCmp<8, false>(CallerPc(), a, b);
}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b) {
  TraceCmp<8, true>(CallerPc(), a, b);
}

// cases[0] = number of cases, cases[1] = bit width of val, cases[2..] = case values.
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_switch(uint64_t val, uint64_t* cases) {
  if (pollen::runtime::HookSites* sites = GetSancovState().hook_sites) sites->Note(CallerPc());
  uint64_t n = cases[0];
  uint64_t bits = cases[1];
  if (bits < 16) return;
  uint8_t size = static_cast<uint8_t>(bits / 8);
  if (n == 0) return;
  // Record the case closest above the value: the one a solver most likely needs; and the
  // first case, so that every switch contributes at least one target. SanitizerCoverage
  // sorts the cases in ascending order (as unsigned 64-bit values, like val), so a binary
  // search finds both: a linear walk over a parser's switch of a hundred cases was a tenth
  // of sqlite3's run time.
  const uint64_t* first = cases + 2;
  const uint64_t* above = std::lower_bound(first, first + n, val);
  if (above != first + n && *above == val) return;
  uint64_t best = above != first + n ? *above : first[0];
  // The stage tries every case (the log drops repeats, and keeps at most its capacity).
  if (pollen::engine::CmpLog* log = GetSancovState().cmp_log) {
    for (uint64_t i = 0; i < n; i++) log->AddInt(val, cases[2 + i], size);
  }
  // The case above to the site's slot: the one a solver most likely needs.
  const uintptr_t site = CallerPc() - reinterpret_cast<uintptr_t>(&__executable_start);
  GetSancovState().cmp.AddSiteInt(site, val, best, size);
  if (n > 1 && cases[2] != best) GetSancovState().cmp.AddInt(val, cases[2], size);
}

POLLEN_NO_COVERAGE void __sanitizer_cov_trace_div4(uint32_t) {}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_div8(uint64_t) {}
POLLEN_NO_COVERAGE void __sanitizer_cov_trace_gep(uintptr_t) {}

}  // extern "C"

size_t pollen::runtime::ComparisonHookAddresses(uintptr_t* out) {
  const uintptr_t hooks[] = {
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_cmp1),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_const_cmp1),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_cmp2),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_const_cmp2),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_cmp4),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_const_cmp4),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_cmp8),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_const_cmp8),
      reinterpret_cast<uintptr_t>(&__sanitizer_cov_trace_switch),
  };
  static_assert(sizeof(hooks) / sizeof(hooks[0]) <= HookSites::kMaxHooks);
  std::memcpy(out, hooks, sizeof(hooks));
  return sizeof(hooks) / sizeof(hooks[0]);
}
