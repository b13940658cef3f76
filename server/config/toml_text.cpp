// TOML text before it becomes a table: the guard against input toml++ 3.3.0 mishandles (CheckTomlText,
// also used for job recipes) and the parse itself (ParseToml), both turning failures into InvalidArgument.
#include <cctype>
#include <cstring>
#include <utility>

#include "server/config/config.h"
#include "server/config/config_internal.h"

namespace forkscope::server {
namespace {

// toml++ 3.3.0 (Debian 12) hits undefined behaviour on a non-ASCII byte outside a string or comment,
// or right after a line-ending backslash in a """ string (marzer/tomlplusplus#295, fixed after 3.3).
// TOML allows neither there, so refuse such input before the parser sees it.
// Whether a string literal may begin at text[i]: after '=', '[', ',', '{', '.' (dotted keys) or at the
// start of a line, spaces aside.
bool StringMayStart(const std::string& text, size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  if (i == 0) return true;
  char prev = text[i - 1];
  return prev == '=' || prev == '[' || prev == ',' || prev == '{' || prev == '.' || prev == '\n' || prev == '\r';
}

Status CheckNonAsciiPlacement(const std::string& text, const std::string& origin, std::string& masked) {
  masked = text;
  enum class In { kCode, kComment, kBasic, kLiteral, kMlBasic, kMlLiteral } in = In::kCode;
  int line = 1;
  auto at = [&](size_t i, const char* s) { return text.compare(i, std::strlen(s), s) == 0; };
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    if (c >= 0x80 && in != In::kCode) masked[i] = 'x';
    switch (in) {
      case In::kCode:
        if (c >= 0x80) {
          return InvalidArgument(origin + ":" + std::to_string(line) + ": non-ASCII character outside a string");
        }
        if (c == '#') {
          in = In::kComment;
        } else if ((c == '"' || c == '\'') && !StringMayStart(text, i)) {
          // A quote where no string can begin (e.g. right after a number): toml++ does not read a
          // string here either, so what follows is checked as code.
        } else if (at(i, "\"\"\"")) {
          in = In::kMlBasic, i += 2;
        } else if (at(i, "'''")) {
          in = In::kMlLiteral, i += 2;
        } else if (c == '"') {
          in = In::kBasic;
        } else if (c == '\'') {
          in = In::kLiteral;
        }
        break;
      case In::kComment:
        if (c == '\n') in = In::kCode;
        break;
      case In::kBasic:
        if (c == '\\')
          ++i;
        else if (c == '"' || c == '\n')
          in = In::kCode;
        break;
      case In::kLiteral:
        if (c == '\'' || c == '\n') in = In::kCode;
        break;
      case In::kMlBasic:
        if (at(i, "\"\"\"")) {
          in = In::kCode, i += 2;
        } else if (c == '\\') {
          size_t j = i + 1;
          while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) line += text[j++] == '\n';
          if (j > i + 1 && j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80)
            return InvalidArgument(origin + ":" + std::to_string(line) +
                                   ": non-ASCII character right after a line-ending backslash");
          i = (j > i + 1) ? j - 1 : i + 1;
        }
        break;
      case In::kMlLiteral:
        if (at(i, "'''")) in = In::kCode, i += 2;
        break;
    }
  }
  return Status::Ok();
}

// Whether every non-ASCII byte of text belongs to a well-formed UTF-8 sequence.
bool ValidUtf8(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = 0;  // continuation bytes that follow
    if (c >= 0x80) {
      if ((c >> 5) == 0x6)
        n = 1;
      else if ((c >> 4) == 0xE)
        n = 2;
      else if ((c >> 3) == 0x1E)
        n = 3;
      else
        return false;
    }
    if (i + n >= text.size()) return n == 0;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
    i += n + 1;
  }
  return true;
}

Status ParseErrorStatus(const toml::parse_error& error, const std::string& origin) {
  const toml::source_region& where = error.source();
  return InvalidArgument(origin + ":" + std::to_string(where.begin.line) + ":" + std::to_string(where.begin.column) +
                         ": " + std::string(error.description()));
}

}  // namespace

namespace config_internal {

Result<toml::table> ParseToml(const std::string& text, const std::string& origin) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return ParseErrorStatus(error, origin);
  }
#else
  toml::parse_result parsed = toml::parse(text, origin);
  if (!parsed) return ParseErrorStatus(parsed.error(), origin);
  return std::move(parsed).table();
#endif
}

}  // namespace config_internal

// The non-ASCII guard, then a first parse with every non-ASCII byte (only allowed inside strings and
// comments) masked as ASCII: any syntax error is found by a parse that cannot reach toml++ 3.3.0's
// undefined behaviour; only a well-formed document is parsed as it is.
Status CheckTomlText(const std::string& text, const std::string& origin) {
  std::string masked;
  FS_RETURN_IF_ERROR(CheckNonAsciiPlacement(text, origin, masked));
  if (masked == text) return Status::Ok();
  FS_RETURN_IF_ERROR(config_internal::ParseToml(masked, origin).status());
  if (!ValidUtf8(text)) return InvalidArgument(origin + ": text is not valid UTF-8");
  return Status::Ok();
}

}  // namespace forkscope::server
