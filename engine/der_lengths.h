// The nested elements of ASN.1 DER data (X.509 certificates, keys, PKCS and CMS messages,
// SNMP and LDAP packets), so that a mutation that grows or shrinks the bytes inside one
// element can fix the length of every element around it (engine/mutate_encoded.cc).
// Walks constructed elements, and OCTET and BIT STRINGs whose whole content is DER (an
// X.509 extension's value is one).
#ifndef POLLEN_ENGINE_DER_LENGTHS_H_
#define POLLEN_ENGINE_DER_LENGTHS_H_

#include <cstddef>
#include <cstdint>

namespace pollen::engine {

class DerElements {
 public:
  static constexpr size_t kMax = 256;
  static constexpr int kMaxDepth = 12;

  struct Element {
    uint32_t tag_at;     // offset of the element, its tag's first byte
    uint32_t length_at;  // offset of the length's first byte
    uint32_t value;      // offset of the value, after the length
    uint32_t end;        // value + the length
  };

  // Reads the elements of data[0, size): as many as parse, in order, up to kMax. Data that is
  // not DER gives few or none.
  void Parse(const uint8_t* data, size_t size);

  // `data` is the parsed bytes after a mutation that left data[0, at) as it was and changed
  // the size by `delta` (the bytes changed start at `at`). Adds `delta` to the length of
  // every element whose value encloses the change, where the new length fits the length's
  // encoding (short form, or the same number of long-form bytes). Bytes inserted where an
  // element's value ends count as inside it when `at_end_too` (appended to it), and as
  // outside it otherwise (put before what follows). Returns how many it fixed.
  size_t Fix(uint8_t* data, size_t at, int64_t delta, bool at_end_too) const;

  size_t count() const { return count_; }
  const Element& element(size_t i) const { return elements_[i]; }

 private:
  // Elements of data[begin, end) at nesting `depth`; true when they fill it exactly.
  bool ParseRange(const uint8_t* data, size_t begin, size_t end, int depth);

  Element elements_[kMax];
  size_t count_ = 0;
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_DER_LENGTHS_H_
