// Mutations inside base64 text (engine/mutate_encoded.cc).
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/der_lengths.h"
#include "engine/mutator.h"
#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

const char kHeader[] = "-----BEGIN CERTIFICATE-----";
const char kFooter[] = "-----END CERTIFICATE-----";

std::string ToBase64(const Bytes& in) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = uint32_t{in[i]} << 16;
    if (i + 1 < in.size()) v |= uint32_t{in[i + 1]} << 8;
    if (i + 2 < in.size()) v |= in[i + 2];
    out += abc[v >> 18];
    out += abc[(v >> 12) & 63];
    out += i + 1 < in.size() ? abc[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? abc[v & 63] : '=';
  }
  return out;
}

// Decodes; false on a character outside the alphabet or padding out of place.
bool FromBase64(const std::string& text, Bytes* out) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char x : text) {
    int s = std::isupper(static_cast<unsigned char>(x))   ? x - 'A'
            : std::islower(static_cast<unsigned char>(x)) ? x - 'a' + 26
            : std::isdigit(static_cast<unsigned char>(x)) ? x - '0' + 52
            : x == '+'                                    ? 62
            : x == '/'                                    ? 63
            : x == '='                                    ? -2
                                                          : -1;
    if (s == -1) return false;
    if (s == -2) {
      padding = true;
      continue;
    }
    if (padding) return false;
    acc = (acc << 6) | static_cast<uint32_t>(s);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return true;
}

// A certificate-like DER structure of 150 bytes: SEQUENCE { SEQUENCE { INTEGER, OCTET
// STRING }, BIT STRING }.
Bytes Der() {
  Bytes inner = {0x02, 0x02, 0x01, 0x23, 0x04, 0x28};
  for (int i = 0; i < 0x28; i++) inner.push_back(static_cast<uint8_t>('a' + i % 26));
  Bytes body = {0x30, static_cast<uint8_t>(inner.size())};
  body.insert(body.end(), inner.begin(), inner.end());
  body.push_back(0x03);
  body.push_back(0x5d);
  body.push_back(0x00);
  for (int i = 0; i < 0x5c; i++) body.push_back(static_cast<uint8_t>(i * 7));
  Bytes der = {0x30, 0x81, static_cast<uint8_t>(body.size())};
  der.insert(der.end(), body.begin(), body.end());
  return der;
}

std::string Pem(const Bytes& der, const std::string& eol) {
  std::string b64 = ToBase64(der);
  std::string text = std::string(kHeader) + eol;
  for (size_t i = 0; i < b64.size(); i += 64) text += b64.substr(i, 64) + eol;
  return text + kFooter + eol;
}

struct Base64Results {
  std::vector<std::string> texts;
};

Base64Results MutateMany(const std::string& input, size_t max_size, uint64_t seed, int tries) {
  Mutator m(max_size);
  Rng rng = Rng::FromSeed(seed);
  Bytes buf(max_size);
  Base64Results r;
  for (int i = 0; i < tries; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, MutationSources{});
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "Base64") continue;
    r.texts.emplace_back(buf.begin(), buf.begin() + size);
  }
  return r;
}

// Splits a mutated PEM text into its base64 lines; false when the armour changed.
bool Lines(const std::string& text, const std::string& eol, std::vector<std::string>* lines) {
  std::string head = std::string(kHeader) + eol;
  std::string foot = eol + kFooter + eol;
  if (text.rfind(head, 0) != 0 || text.size() < head.size() + foot.size()) return false;
  if (text.compare(text.size() - foot.size(), foot.size(), foot) != 0) return false;
  std::string body = text.substr(head.size(), text.size() - head.size() - foot.size());
  lines->clear();
  for (size_t at = 0;;) {
    size_t next = body.find(eol, at);
    lines->push_back(body.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + eol.size();
  }
  return true;
}

// The text is decoded, mutated and encoded again in the same layout (or the decoded bytes
// are the mutant, alone): the armour kept, lines
// of 64 characters, valid base64 whose bytes nearly always differ from the original; where the size
// changed, the enclosing lengths mostly follow.
void ExpectMutatedInPlace(const std::string& eol) {
  const Bytes der = Der();
  const std::string pem = Pem(der, eol);
  Base64Results r = MutateMany(pem, 4096, 7, 20000);
  ASSERT_GT(r.texts.size(), 200u);
  size_t resized = 0, fixed = 0, same = 0, alone = 0;
  for (const std::string& text : r.texts) {
    if (Bytes(text.begin(), text.end()) == der) {
      alone++;
      continue;
    }
    std::vector<std::string> lines;
    ASSERT_TRUE(Lines(text, eol, &lines)) << text;
    std::string b64;
    for (size_t i = 0; i < lines.size(); i++) {
      if (i + 1 < lines.size()) ASSERT_EQ(lines[i].size(), 64u) << text;
      ASSERT_LE(lines[i].size(), 64u);
      ASSERT_EQ(lines[i].find('\r'), std::string::npos);
      b64 += lines[i];
    }
    EXPECT_EQ(b64.size() % 4, 0u) << "padded like the original";
    Bytes decoded;
    ASSERT_TRUE(FromBase64(b64, &decoded)) << text;
    if (decoded == der) same++;  // e.g. a part copied over an equal one
    if (decoded.size() == der.size() || decoded.size() < 3) continue;
    resized++;
    if (decoded[1] == 0x81 && decoded[2] == decoded.size() - 3) fixed++;
  }
  EXPECT_LT(same * 10, r.texts.size());
  // The decoded bytes alone, one time in eight.
  EXPECT_GT(alone * 16, r.texts.size());
  EXPECT_LT(alone * 4, r.texts.size());
  ASSERT_GT(resized, 50u);
  EXPECT_GT(fixed * 2, resized) << fixed << " of " << resized;
  EXPECT_LT(fixed, resized) << "a quarter are left unfixed";
}

// Counts the elements of data[begin, end), walking constructed ones; false unless every
// level is filled exactly (the test's own reading of DER, short and one-byte long forms).
bool ExactDer(const Bytes& d, size_t begin, size_t end, size_t* count) {
  size_t pos = begin;
  while (pos < end) {
    if (pos + 2 > end) return false;
    uint8_t tag = d[pos];
    size_t len = d[pos + 1];
    size_t value = pos + 2;
    if (len == 0x81) {
      if (pos + 3 > end) return false;
      len = d[pos + 2];
      value++;
    } else if (len > 0x80) {
      return false;
    }
    if (value + len > end) return false;
    ++*count;
    if ((tag & 0x20) != 0 && !ExactDer(d, value, value + len, count)) return false;
    pos = value + len;
  }
  return true;
}

// Whole elements are erased, copied and replaced, with every length around them fixed: the
// results are exact DER with fewer or more elements than the original's five.
TEST(MutateBase64Test, WholeElementsAreErasedAndCopied) {
  const Bytes der = Der();
  size_t original = 0;
  ASSERT_TRUE(ExactDer(der, 0, der.size(), &original));
  ASSERT_EQ(original, 5u);
  Base64Results r = MutateMany(Pem(der, "\n"), 4096, 17, 20000);
  size_t fewer = 0, more = 0;
  for (const std::string& text : r.texts) {
    std::vector<std::string> lines;
    if (!Lines(text, "\n", &lines)) continue;  // the decoded bytes alone
    std::string b64;
    for (const std::string& line : lines) b64 += line;
    Bytes decoded;
    ASSERT_TRUE(FromBase64(b64, &decoded));
    size_t count = 0;
    if (!ExactDer(decoded, 0, decoded.size(), &count)) continue;
    fewer += count < original;
    more += count > original;
  }
  EXPECT_GT(fewer * 20, r.texts.size()) << fewer << " of " << r.texts.size();
  EXPECT_GT(more * 20, r.texts.size()) << more << " of " << r.texts.size();
}

// DER inputs themselves: most mutants are still exact DER, with elements erased and copied.
TEST(MutateDerTest, DerInputsKeepTheirStructure) {
  const Bytes der = Der();
  Mutator m(4096);
  Rng rng = Rng::FromSeed(19);
  Bytes buf(4096);
  size_t total = 0, exact = 0, fewer = 0, more = 0;
  for (int i = 0; i < 20000; i++) {
    std::copy(der.begin(), der.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), der.size(), rng, MutationSources{});
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "Der") continue;
    total++;
    size_t count = 0;
    if (!ExactDer(Bytes(buf.begin(), buf.begin() + size), 0, size, &count)) continue;
    exact++;
    fewer += count < 5;
    more += count > 5;
  }
  ASSERT_GT(total, 200u);
  EXPECT_GT(exact * 2, total) << exact << " of " << total;
  EXPECT_GT(fewer * 20, total);
  EXPECT_GT(more * 20, total);
}

// Text, and nearly always random bytes, are left to the other mutators.
TEST(MutateDerTest, OtherInputsAreLeftToOthers) {
  Mutator m(512);
  Rng rng = Rng::FromSeed(23);
  Bytes buf(512);
  const std::string text = "SELECT 1 FROM t WHERE x = 'abc';\n";
  size_t der = 0;
  for (int i = 0; i < 20000; i++) {
    size_t size = 1 + rng.Below(256);
    Bytes in = RandomBytes(rng, size);
    if (i % 2 == 0) {
      in.assign(text.begin(), text.end());
      size = in.size();
    }
    std::copy(in.begin(), in.end(), buf.begin());
    m.Mutate(buf.data(), size, rng, MutationSources{});
    ASSERT_FALSE(i % 2 == 0 && std::string(Mutator::MutatorName(m.last_mutator())) == "Der");
    der += std::string(Mutator::MutatorName(m.last_mutator())) == "Der";
  }
  EXPECT_LT(der, 20u) << "of 10,000 random inputs";
}

TEST(MutateBase64Test, PemIsMutatedInItsDecodedBytes) { ExpectMutatedInPlace("\n"); }

TEST(MutateBase64Test, CrlfLineEndsAreKept) { ExpectMutatedInPlace("\r\n"); }

// Words, however long, and runs of one letter case are not taken for base64.
TEST(MutateBase64Test, TextIsNotTakenForBase64) {
  const std::string text =
      "SELECT name FROM abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz WHERE "
      "Identifier1234 = 'x';\n";
  EXPECT_TRUE(MutateMany(text, 4096, 3, 20000).texts.empty());
}

// The run's new encoding fits the mutator's limit.
TEST(MutateBase64Test, StaysWithinTheLimit) {
  const std::string pem = Pem(Der(), "\n");
  Base64Results r = MutateMany(pem, pem.size() + 3, 5, 20000);
  ASSERT_FALSE(r.texts.empty());
  for (const std::string& text : r.texts) EXPECT_LE(text.size(), pem.size() + 3);
}

// Inputs made of base64's characters, line ends, '=' and '-' in any order, of any size up
// to the limit: every mutation keeps within it (a run's end, padding and line layout are
// where a decoder goes wrong).
TEST(MutateBase64Test, AnyMixOfItsCharactersKeepsWithinTheLimit) {
  const std::string chars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/==\n\n\r--";
  Rng rng = Rng::FromSeed(13);
  size_t base64 = 0;
  for (size_t max_size : {size_t{48}, size_t{100}, size_t{301}}) {
    Mutator m(max_size);
    Bytes buf(max_size);
    for (int i = 0; i < 20000; i++) {
      size_t size = rng.BelowSize(max_size + 1);
      if (size > 0 && rng.Bool()) size = std::max<size_t>(size, max_size - rng.Below(4));
      for (size_t k = 0; k < size; k++) buf[k] = chars[rng.BelowSize(chars.size())];
      size_t n = m.Mutate(buf.data(), size, rng, MutationSources{});
      ASSERT_GE(n, 1u);
      ASSERT_LE(n, max_size);
      if (std::string(Mutator::MutatorName(m.last_mutator())) == "Base64") base64++;
    }
  }
  EXPECT_GT(base64, 300u);
}

// Results depend only on the input and the rng, never on what earlier mutations left in
// the mutator's buffers.
TEST(MutateBase64Test, ResultsDoNotDependOnEarlierMutations) {
  const std::string pem = Pem(Der(), "\n");
  ExpectResultsIndependentOfEarlierMutations(Bytes(pem.begin(), pem.end()), 4096, 11);
}

}  // namespace
}  // namespace pollen::engine
