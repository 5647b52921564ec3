// Class 5, a comparison-heavy parser: a bytecode verifier in the manner of eBPF's. Sparse
// 16-bit opcodes go through a switch, helper ids are looked up in a table of 32-bit values,
// and each instruction's registers are checked against what the verifier knows of them, so a
// run logs many comparisons, most of them beside the point. The input:
//   "BCV1", a map count (1 to 4), each map's key and value sizes (two bytes each, little
//   endian), then 8-byte instructions: opcode (2 bytes, little endian), dst, src, imm (4).
// The bug is a verified program that calls the helper map_update (id 0x6d757064) with r1
// a map whose values hold 16 bytes or more, r2 the number of that map's key bytes, and r3 a
// scalar below its value size, then exits with r0 set by the call.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "puzzle_util.h"

namespace {

enum Opcode : uint16_t {
  kMovImm = 0x0b17,
  kMovReg = 0x0b2f,
  kAddImm = 0x1c04,
  kAddReg = 0x1c0c,
  kSubImm = 0x1d04,
  kMulImm = 0x1e04,
  kAndImm = 0x2304,
  kShlImm = 0x2a04,
  kLdMap = 0x4118,
  kLdStack = 0x5210,
  kStStack = 0x5311,
  kJeqImm = 0x6715,
  kJltImm = 0x6725,
  kCall = 0x8585,
  kExit = 0x9595,
};

enum Type : uint8_t { kUnset, kScalar, kMapPtr };

struct Reg {
  Type type = kUnset;
  int64_t value = 0;  // a scalar's value, or a map pointer's map
};

struct Map {
  uint16_t key_size;
  uint16_t value_size;
};

struct Helper {
  uint32_t id;
  Type args[3];
};

const Helper kHelpers[] = {
    {0x6d6c6b70, {kMapPtr, kScalar, kUnset}},   // map_lookup
    {0x6d757064, {kMapPtr, kScalar, kScalar}},  // map_update
    {0x6d64656c, {kMapPtr, kScalar, kUnset}},   // map_delete
    {0x6b74696d, {kUnset, kUnset, kUnset}},     // ktime
    {0x7072616e, {kUnset, kUnset, kUnset}},     // prandom
    {0x74726163, {kScalar, kScalar, kUnset}},   // trace
    {0x636f7079, {kScalar, kScalar, kScalar}},  // copy
    {0x7461696c, {kMapPtr, kScalar, kUnset}},   // tail_call
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5 || size > 512 || memcmp(data, "BCV1", 4) != 0) return 0;
  const uint8_t maps_n = data[4];
  if (maps_n < 1 || maps_n > 4) return 0;
  size_t at = 5;
  if (size < at + 4u * maps_n) return 0;
  Map maps[4];
  for (int i = 0; i < maps_n; i++, at += 4) {
    maps[i] = {puzzle::Le16(data + at), puzzle::Le16(data + at + 2)};
    if (maps[i].key_size == 0 || maps[i].key_size > 64 || maps[i].value_size == 0 ||
        maps[i].value_size > 4096)
      return 0;
  }
  if ((size - at) % 8 != 0 || size == at) return 0;
  Reg r[11];
  r[10] = {kScalar, 512};  // the frame pointer
  bool called_update = false;
  for (size_t pc = at; pc < size; pc += 8) {
    const uint16_t op = puzzle::Le16(data + pc);
    const uint8_t dst = data[pc + 2], src = data[pc + 3];
    const int32_t imm = static_cast<int32_t>(puzzle::Le32(data + pc + 4));
    if (dst > 10 || src > 10) return 0;
    if (dst == 10 && op != kStStack && op != kJeqImm && op != kJltImm) return 0;
    switch (op) {
      case kMovImm:
        r[dst] = {kScalar, imm};
        break;
      case kMovReg:
        if (r[src].type == kUnset) return 0;
        r[dst] = r[src];
        break;
      case kAddImm:
      case kSubImm:
      case kMulImm:
      case kAndImm:
      case kShlImm:
        if (r[dst].type != kScalar) return 0;
        if (op == kAddImm) r[dst].value += imm;
        if (op == kSubImm) r[dst].value -= imm;
        if (op == kMulImm) r[dst].value *= imm;
        if (op == kAndImm) r[dst].value &= imm;
        if (op == kShlImm) r[dst].value <<= (imm & 31);
        break;
      case kAddReg:
        if (r[dst].type != kScalar || r[src].type != kScalar) return 0;
        r[dst].value += r[src].value;
        break;
      case kLdMap:
        if (imm < 0 || imm >= maps_n) return 0;
        r[dst] = {kMapPtr, imm};
        break;
      case kLdStack:
      case kStStack:
        if (imm >= 0 || imm < -512 || (imm & 7) != 0) return 0;
        if (op == kLdStack)
          r[dst] = {kScalar, 0};
        else if (r[src].type != kScalar)
          return 0;
        break;
      case kJeqImm:
      case kJltImm:
        if (r[dst].type != kScalar || imm <= 0) return 0;
        break;  // the verifier walks the straight line only
      case kCall: {
        const Helper* helper = nullptr;
        for (const Helper& h : kHelpers) {
          if (h.id == static_cast<uint32_t>(imm)) helper = &h;
        }
        if (helper == nullptr) return 0;
        for (int a = 0; a < 3; a++) {
          if (helper->args[a] != kUnset && r[a + 1].type != helper->args[a]) return 0;
        }
        if (helper->id == 0x6d757064) {
          const Map& m = maps[r[1].value];
          called_update = m.value_size >= 16 && r[2].value == m.key_size && r[3].value >= 0 &&
                          r[3].value < m.value_size;
        }
        r[0] = {kScalar, 0};
        for (int a = 1; a <= 5; a++) r[a] = {};
        break;
      }
      case kExit:
        if (r[0].type != kScalar) return 0;
        if (called_update) puzzle::Crash();
        return 0;
      default:
        return 0;
    }
  }
  return 0;
}
