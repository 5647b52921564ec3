#include "base/go_corpus.h"

#include <optional>
#include <utility>

#include "base/hex.h"
#include "base/sha1.h"

namespace pollen::base {
namespace {

void AppendUtf8(uint32_t code_point, std::vector<uint8_t>* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<uint8_t>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<uint8_t>(0xc0 | (code_point >> 6)));
    out->push_back(static_cast<uint8_t>(0x80 | (code_point & 0x3f)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<uint8_t>(0xe0 | (code_point >> 12)));
    out->push_back(static_cast<uint8_t>(0x80 | ((code_point >> 6) & 0x3f)));
    out->push_back(static_cast<uint8_t>(0x80 | (code_point & 0x3f)));
  } else {
    out->push_back(static_cast<uint8_t>(0xf0 | (code_point >> 18)));
    out->push_back(static_cast<uint8_t>(0x80 | ((code_point >> 12) & 0x3f)));
    out->push_back(static_cast<uint8_t>(0x80 | ((code_point >> 6) & 0x3f)));
    out->push_back(static_cast<uint8_t>(0x80 | (code_point & 0x3f)));
  }
}

// The length of the well-formed UTF-8 sequence at the start of `s` (non-empty), or 0 when
// it is malformed (truncated, overlong, a surrogate, or above U+10FFFF), as Go's scanner
// judges source text.
size_t Utf8SequenceLength(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return 1;
  size_t length;
  uint32_t min;
  uint32_t value;
  if ((lead & 0xe0) == 0xc0) {
    length = 2, min = 0x80, value = lead & 0x1f;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3, min = 0x800, value = lead & 0x0f;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4, min = 0x10000, value = lead & 0x07;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    value = (value << 6) | (byte(i) & 0x3f);
  }
  if (value < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
  return length;
}

// Parses the one argument line of a corpus file (trimmed). After an error, error_column()
// tells where it is.
class ArgumentParser {
 public:
  explicit ArgumentParser(std::string_view line) : line_(line) {}

  // One argument of any type: a string literal's bytes for string and []byte, else the
  // text between the parentheses (a number, true, false), trimmed.
  Result<GoCorpusArgument> ParseAny() {
    SkipSpace();
    GoCorpusArgument arg;
    for (const char* bits : {"64", "32"}) {
      if (Consume(std::string("math.Float") + bits + "frombits(")) {
        arg.type = std::string("float") + bits;
        return Token(&arg);
      }
    }
    if (Consume("[]")) {
      SkipSpace();
      arg.type = "[]" + std::string(Identifier());
    } else {
      arg.type = std::string(Identifier());
    }
    if (arg.type.empty() || arg.type == "[]")
      return Fail("expected a type, as in int64(5) or string(\"...\")");
    SkipSpace();
    if (!Consume("(")) return Fail("expected '(' after " + arg.type);
    SkipSpace();
    if (Peek() == '`' || Peek() == '"') {
      Status literal = Peek() == '`' ? RawLiteral(&arg.bytes) : InterpretedLiteral(&arg.bytes);
      if (!literal.ok()) return literal;
      arg.literal = true;
      SkipSpace();
      if (!Consume(")")) return Fail("expected ')' after the string literal");
      SkipSpace();
      if (pos_ != line_.size()) return Fail("unexpected text after the closing ')'");
      return arg;
    }
    return Token(&arg);
  }

  Result<std::vector<uint8_t>> Parse() {
    SkipSpace();
    const size_t type_start = pos_;
    std::string type;
    if (Consume("[]")) {
      SkipSpace();
      type = "[]" + std::string(Identifier());
    } else {
      type = std::string(Identifier());
    }
    if (type.empty() || type == "[]") {
      return Fail("expected []byte(\"...\") or string(\"...\")");
    }
    if (type != "[]byte" && type != "string") {
      return FailAt(type_start, "unsupported argument type " + type +
                                    ": Pollen handles only one []byte or string argument");
    }
    SkipSpace();
    if (!Consume("(")) return Fail("expected '(' after " + type);
    SkipSpace();
    std::vector<uint8_t> bytes;
    Status literal = Peek() == '`' ? RawLiteral(&bytes) : InterpretedLiteral(&bytes);
    if (!literal.ok()) return literal;
    SkipSpace();
    if (!Consume(")")) return Fail("expected ')' after the string literal");
    SkipSpace();
    if (pos_ != line_.size()) return Fail("unexpected text after the closing ')'");
    return bytes;
  }

  // The rest of the line up to its closing ')', trimmed, as arg->token.
  Result<GoCorpusArgument> Token(GoCorpusArgument* arg) {
    size_t close = line_.rfind(')');
    if (close == std::string_view::npos || close < pos_)
      return Fail("expected ')' at the end of the line");
    std::string_view token = line_.substr(pos_, close - pos_);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
    if (token.empty()) return Fail("expected a value between the parentheses");
    arg->token = std::string(token);
    pos_ = close + 1;
    return std::move(*arg);
  }

  // The 1-based column of the last error.
  size_t error_column() const { return error_pos_ + 1; }

 private:
  char Peek() const { return pos_ < line_.size() ? line_[pos_] : '\0'; }
  bool AtEnd() const { return pos_ >= line_.size(); }
  void SkipSpace() {
    while (!AtEnd() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  bool Consume(std::string_view token) {
    if (line_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  std::string_view Identifier() {
    const size_t start = pos_;
    while (!AtEnd()) {
      const char c = line_[pos_];
      const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                        (pos_ > start && c >= '0' && c <= '9');
      if (!word) break;
      ++pos_;
    }
    return line_.substr(start, pos_ - start);
  }
  Status Fail(std::string message) { return FailAt(pos_, std::move(message)); }
  Status FailAt(size_t at, std::string message) {
    error_pos_ = at;
    return Status::Error(std::move(message));
  }

  // Copies one source character (a well-formed UTF-8 sequence, not NUL) into `out`.
  Status SourceCharacter(std::vector<uint8_t>* out) {
    if (line_[pos_] == '\0') return Fail("NUL byte in string literal");
    const size_t length = Utf8SequenceLength(line_.substr(pos_));
    if (length == 0) return Fail("invalid UTF-8 in string literal");
    out->insert(out->end(), line_.begin() + pos_, line_.begin() + pos_ + length);
    pos_ += length;
    return Status::Ok();
  }

  // `...`: no escapes; carriage returns are dropped, as Go does.
  Status RawLiteral(std::vector<uint8_t>* out) {
    const size_t start = pos_++;  // `
    while (!AtEnd() && line_[pos_] != '`') {
      if (line_[pos_] == '\r') {
        ++pos_;
        continue;
      }
      if (Status s = SourceCharacter(out); !s.ok()) return s;
    }
    if (AtEnd()) return FailAt(start, "unterminated raw string literal (no closing `)");
    ++pos_;  // `
    return Status::Ok();
  }

  Status InterpretedLiteral(std::vector<uint8_t>* out) {
    const size_t start = pos_;
    if (!Consume("\"")) return Fail("expected a string literal (\"...\" or `...`)");
    while (!AtEnd() && line_[pos_] != '"') {
      if (line_[pos_] != '\\') {
        if (Status s = SourceCharacter(out); !s.ok()) return s;
        continue;
      }
      if (Status s = Escape(out); !s.ok()) return s;
    }
    if (AtEnd()) return FailAt(start, "unterminated string literal (no closing \")");
    ++pos_;  // "
    return Status::Ok();
  }

  // Reads `digits` digits in `base` after the escape letter; nullopt if there are fewer.
  std::optional<uint32_t> Digits(int digits, int base) {
    uint32_t value = 0;
    for (int i = 0; i < digits; ++i, ++pos_) {
      const int digit = AtEnd() ? -1 : HexDigitValue(line_[pos_]);
      if (digit < 0 || digit >= base) return std::nullopt;
      value = value * base + digit;
    }
    return value;
  }

  Status Escape(std::vector<uint8_t>* out) {
    const size_t start = pos_++;  // the backslash
    if (AtEnd()) return Fail("unterminated string literal (ends in a backslash)");
    const char letter = line_[pos_];
    static constexpr std::string_view kShort = "a\ab\bf\fn\nr\rt\tv\v\\\\\"\"''";
    for (size_t i = 0; i < kShort.size(); i += 2) {
      if (letter == kShort[i]) {
        out->push_back(static_cast<uint8_t>(kShort[i + 1]));
        ++pos_;
        return Status::Ok();
      }
    }
    const auto fail_at_start = [&](std::string message) {
      return FailAt(start, std::move(message));
    };
    std::optional<uint32_t> value;
    if (letter >= '0' && letter <= '7') {
      value = Digits(3, 8);
      if (!value) return fail_at_start("octal escape needs exactly 3 digits (\\NNN)");
      if (*value > 0xff) return fail_at_start("octal escape above \\377");
      out->push_back(static_cast<uint8_t>(*value));
      return Status::Ok();
    }
    ++pos_;  // the letter
    if (letter == 'x') {
      value = Digits(2, 16);
      if (!value) return fail_at_start("\\x escape needs exactly 2 hex digits");
      out->push_back(static_cast<uint8_t>(*value));
      return Status::Ok();
    }
    if (letter == 'u' || letter == 'U') {
      value = Digits(letter == 'u' ? 4 : 8, 16);
      if (!value) {
        return fail_at_start(letter == 'u' ? "\\u escape needs exactly 4 hex digits"
                                           : "\\U escape needs exactly 8 hex digits");
      }
      if (*value >= 0xd800 && *value <= 0xdfff) {
        return fail_at_start("escape names a UTF-16 surrogate, which is not a character");
      }
      if (*value > 0x10ffff) return fail_at_start("escape above U+10FFFF");
      AppendUtf8(*value, out);
      return Status::Ok();
    }
    const bool printable = letter >= 0x20 && letter < 0x7f;
    return fail_at_start(printable ? std::string("unknown escape sequence \\") + letter
                                   : std::string("unknown escape sequence"));
  }

  const std::string_view line_;
  size_t pos_ = 0;
  size_t error_pos_ = 0;
};

// The letter of the short escape Go's %q writes for byte `c` (n for a newline, \\ for a
// backslash, ...), or 0 when there is none.
char ShortEscapeLetter(uint8_t c) {
  static constexpr std::string_view kShort = "\aa\bb\ff\nn\rr\tt\vv\\\\\"\"";
  for (size_t i = 0; i < kShort.size(); i += 2) {
    if (static_cast<uint8_t>(kShort[i]) == c) return kShort[i + 1];
  }
  return 0;
}

bool IsTrimmedSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Calls fn(line_number, indent, line) for each non-blank line from text[start] on (line 2
// and after: the header is line 1), trimmed as Go trims them, until fn returns false.
// Returns the number of the last line.
template <typename F>
size_t ForEachArgumentLine(std::string_view text, size_t start, F fn) {
  size_t line_number = 1;
  while (start < text.size()) {
    ++line_number;
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    size_t indent = 0;
    while (indent < line.size() && IsTrimmedSpace(line[indent])) ++indent;
    line.remove_prefix(indent);
    while (!line.empty() && IsTrimmedSpace(line.back())) line.remove_suffix(1);
    start = end + 1;
    if (!line.empty() && !fn(line_number, indent, line)) break;
  }
  return line_number;
}

}  // namespace

Result<std::vector<uint8_t>> ParseGoCorpusFile(std::string_view text, std::string_view name) {
  const std::string where(name);
  const auto error_at = [&](size_t line, std::string message) {
    return Status::Error(where + ":" + std::to_string(line) + ": " + message);
  };
  const size_t header_end = text.find('\n');
  if (text.substr(0, header_end) != kGoCorpusHeader) {
    return error_at(
        1, "not a Go corpus file: the first line must be \"" + std::string(kGoCorpusHeader) + "\"");
  }
  if (header_end == std::string_view::npos) {
    return error_at(1, "truncated Go corpus file: no argument after the header");
  }
  // The non-blank lines after the header, trimmed as Go trims them.
  std::vector<size_t> argument_lines;  // their line numbers
  std::string_view first_argument;
  size_t first_indent = 0;
  const size_t line_number = ForEachArgumentLine(
      text, header_end + 1, [&](size_t number, size_t indent, std::string_view line) {
        if (argument_lines.empty()) first_argument = line, first_indent = indent;
        argument_lines.push_back(number);
        return true;
      });
  if (argument_lines.empty()) {
    return error_at(line_number, "truncated Go corpus file: no argument after the header");
  }
  if (argument_lines.size() > 1) {
    return error_at(argument_lines[1],
                    "a second argument (" + std::to_string(argument_lines.size()) +
                        " in all): Pollen handles only one []byte or string argument");
  }
  ArgumentParser parser(first_argument);
  Result<std::vector<uint8_t>> bytes = parser.Parse();
  if (!bytes.ok()) {
    return Status::Error(where + ":" + std::to_string(argument_lines[0]) + ":" +
                         std::to_string(first_indent + parser.error_column()) + ": " +
                         bytes.status().message());
  }
  return bytes;
}

Result<std::vector<GoCorpusArgument>> ParseCorpusArguments(std::string_view text,
                                                           std::string_view name,
                                                           std::string_view header) {
  const std::string where(name);
  const size_t header_end = text.find('\n');
  if (text.substr(0, header_end) != header) {
    return Status::Error(where + ":1: the first line must be \"" + std::string(header) + "\"");
  }
  std::vector<GoCorpusArgument> args;
  Status failed = Status::Ok();
  ForEachArgumentLine(text, header_end == std::string_view::npos ? text.size() : header_end + 1,
                      [&](size_t number, size_t indent, std::string_view line) {
                        ArgumentParser parser(line);
                        Result<GoCorpusArgument> arg = parser.ParseAny();
                        if (!arg.ok()) {
                          failed = Status::Error(where + ":" + std::to_string(number) + ":" +
                                                 std::to_string(indent + parser.error_column()) +
                                                 ": " + arg.status().message());
                          return false;
                        }
                        args.push_back(std::move(arg).value());
                        return true;
                      });
  if (!failed.ok()) return failed;
  return args;
}

std::string QuoteGoBytes(const uint8_t* data, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "\"";
  for (size_t i = 0; i < size; ++i) {
    const uint8_t c = data[i];
    const char short_escape = ShortEscapeLetter(c);
    if (short_escape != 0) {
      text += '\\';
      text += short_escape;
    } else if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      text += "\\x";
      text += kHex[c >> 4];
      text += kHex[c & 0xf];
    }
  }
  text += '"';
  return text;
}

std::string FormatGoCorpusFile(const uint8_t* data, size_t size) {
  return std::string(kGoCorpusHeader) + "\n[]byte(" + QuoteGoBytes(data, size) + ")\n";
}

std::string GoCorpusFileName(std::string_view text) {
  return Sha1Hex(reinterpret_cast<const uint8_t*>(text.data()), text.size()).substr(0, 16);
}

}  // namespace pollen::base
