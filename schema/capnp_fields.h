// Views between Cap'n Proto's Text and Data fields and the standard types, for the codecs
// (docs/decisions.md, "the wire layer"): the only code that reads or writes the generated
// classes. Nothing here copies except String and Bytes, whose names say so.
#ifndef POLLEN_SCHEMA_CAPNP_FIELDS_H_
#define POLLEN_SCHEMA_CAPNP_FIELDS_H_

#include <capnp/blob.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pollen::schema {

// A view of the text, valid while the message is.
inline std::string_view View(capnp::Text::Reader text) { return {text.begin(), text.size()}; }

// Copies of a field's contents.
inline std::string String(capnp::Text::Reader text) { return {text.begin(), text.size()}; }
inline std::vector<uint8_t> Bytes(capnp::Data::Reader data) { return {data.begin(), data.end()}; }

// A field's value for a builder's setter, viewing bytes that must outlive the call.
inline capnp::Data::Reader AsData(const uint8_t* bytes, size_t size) {
  return capnp::Data::Reader(bytes, size);
}
inline capnp::Data::Reader AsData(const std::vector<uint8_t>& bytes) {
  return AsData(bytes.data(), bytes.size());
}
inline capnp::Text::Reader AsText(const std::string& text) {
  return capnp::Text::Reader(text.data(), text.size());
}

}  // namespace pollen::schema

#endif  // POLLEN_SCHEMA_CAPNP_FIELDS_H_
