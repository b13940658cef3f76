// Role evidence in C/C++/CUDA headers: the functions declared, the implementation beside the header.
#include "analyzer/classify/code_roles.h"

#include <re2/re2.h>

#include <cctype>
#include <unordered_set>

namespace forkscope::analyzer::classify {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Words that stand before `(` without naming a declared function.
bool IsKeyword(std::string_view word) {
  static const std::unordered_set<std::string_view> kWords = {
      "if",       "for",           "while",         "switch",     "return",  "sizeof", "alignof", "decltype",
      "noexcept", "static_assert", "__attribute__", "__declspec", "__asm__", "asm",    "defined", "operator",
      "throw",    "alignas",       "typeid",        "catch",      "new",     "delete"};
  return kWords.count(word) > 0;
}

// Parameters of the parenthesised list that starts at text[open]: top-level commas plus one, 0 for
// `()` or `(void)`; -1 when the list does not close.
int Arity(std::string_view text, size_t open) {
  int depth = 0, commas = 0;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') {
      if (--depth == 0) {
        std::string_view inside = text.substr(open + 1, i - open - 1);
        while (!inside.empty() && std::isspace(static_cast<unsigned char>(inside.front()))) inside.remove_prefix(1);
        while (!inside.empty() && std::isspace(static_cast<unsigned char>(inside.back()))) inside.remove_suffix(1);
        if (inside.empty() || inside == "void") return 0;
        return commas + 1;
      }
      continue;
    }
    if (depth == 1 && c == ',') ++commas;
  }
  return -1;
}

// The unqualified name just before the first '(' of a statement, when the statement reads like a
// function prototype: `ret name(args) [qualifiers];`, not an initialisation or an alias.
std::string PrototypeName(std::string_view stmt) {
  const size_t open = stmt.find('(');
  if (open == std::string_view::npos || stmt.find(')', open) == std::string_view::npos) return "";
  const std::string_view head = stmt.substr(0, open);
  if (head.find('=') != std::string_view::npos) return "";  // `auto x = f(...)`: a variable
  size_t end = head.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(head[end - 1]))) --end;
  size_t begin = end;
  while (begin > 0 && IsIdentChar(head[begin - 1])) --begin;
  if (begin == end || std::isdigit(static_cast<unsigned char>(head[begin]))) return "";
  const std::string_view name = head.substr(begin, end - begin);
  if (IsKeyword(name)) return "";
  // A return type (or at least a qualifier) precedes the name: a bare `name(args);` is a call.
  size_t first = 0;
  while (first < head.size() && std::isspace(static_cast<unsigned char>(head[first]))) ++first;
  if (first >= begin) return "";
  for (std::string_view word : {"return", "typedef", "using", "friend", "goto", "case"})
    if (head.substr(first, word.size()) == word) return "";
  return std::string(name);
}

// The lines of one side of a hunk with comments blanked and preprocessor lines dropped.
std::string SideText(const Hunk& hunk, bool new_side) {
  std::string out;
  bool in_block_comment = false, in_directive = false;
  for (const auto& line : hunk.lines) {
    if (line.origin == (new_side ? '-' : '+')) continue;
    std::string_view text = line.text;
    size_t first = text.find_first_not_of(" \t");
    const bool directive = in_directive || (!in_block_comment && first != std::string_view::npos && text[first] == '#');
    in_directive = directive && !text.empty() && text.back() == '\\';
    if (directive) continue;
    for (size_t i = 0; i < text.size(); ++i) {
      if (in_block_comment) {
        if (text.compare(i, 2, "*/") == 0) in_block_comment = false, ++i;
        continue;
      }
      if (text.compare(i, 2, "/*") == 0) {
        in_block_comment = true;
        ++i;
        continue;
      }
      if (text.compare(i, 2, "//") == 0) break;
      out += text[i];
    }
    out += ' ';
  }
  return out;
}

}  // namespace

bool IsCxxHeader(std::string_view path) {
  for (std::string_view ext : {".h", ".hpp", ".hh", ".hxx", ".cuh", ".inl"})
    if (EndsWith(path, ext)) return true;
  return false;
}

std::vector<std::string> ImplementationPaths(std::string_view header) {
  const size_t slash = header.rfind('/');
  const size_t dot = header.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  const std::string stem(header.substr(0, dot));
  std::vector<std::string> out;
  for (const char* ext : {".cpp", ".cc", ".cxx", ".cu", ".c"}) out.push_back(stem + ext);
  return out;
}

std::vector<Declared> DeclaredFunctions(const Hunk& hunk, bool new_side) {
  const std::string text = SideText(hunk, new_side);
  // Braces opened in the hunk: a namespace, class or extern block keeps declarations; any other
  // (a function body, an initialiser) holds statements. Braces closed past the hunk's start are ignored.
  std::vector<bool> declaration_scope;
  std::vector<Declared> names;
  std::string stmt;
  auto in_declarations = [&declaration_scope] {
    for (bool d : declaration_scope)
      if (!d) return false;
    return true;
  };
  int parens = 0;
  for (char c : text) {
    if (c == '(') ++parens;
    if (c == ')' && parens > 0) --parens;
    if (c == '{' && parens == 0) {
      static const RE2 kScope(R"(\b(?:namespace|class|struct|union|extern)\b)");
      declaration_scope.push_back(RE2::PartialMatch(stmt, kScope) && stmt.find('(') == std::string::npos);
      stmt.clear();
      continue;
    }
    if (c == '}' && parens == 0) {
      if (!declaration_scope.empty()) declaration_scope.pop_back();
      stmt.clear();
      continue;
    }
    if (c == ';' && parens == 0) {
      if (in_declarations()) {
        std::string name = PrototypeName(stmt);
        const int arity = name.empty() ? -1 : Arity(stmt, stmt.find('('));
        if (arity >= 0) names.push_back(Declared{std::move(name), arity});
      }
      stmt.clear();
      continue;
    }
    if (c == ':' && parens == 0 &&
        (EndsWith(stmt, "public") || EndsWith(stmt, "private") || EndsWith(stmt, "protected"))) {
      stmt.clear();  // an access specifier is no part of the next declaration
      continue;
    }
    stmt += c;
  }
  return names;
}

bool MentionsAny(std::string_view text, const std::vector<Declared>& declared) {
  for (const auto& d : declared)
    for (size_t at = text.find(d.name); at != std::string_view::npos; at = text.find(d.name, at + 1)) {
      size_t after = at + d.name.size();
      while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
      if (after < text.size() && text[after] == '(') return true;
    }
  return false;
}

bool DefinesAny(const std::vector<std::string_view>& lines, size_t begin, size_t end,
                const std::vector<Declared>& declared) {
  std::string head;
  for (size_t i = begin; i < end && i < lines.size(); ++i) {
    std::string_view line = lines[i];
    const size_t brace = line.find('{');
    const size_t semi = line.find(';');
    if (semi != std::string_view::npos && (brace == std::string_view::npos || semi < brace)) return false;
    head.append(line.substr(0, brace)).push_back(' ');
    if (brace != std::string_view::npos) break;
  }
  for (const auto& d : declared) {
    for (size_t at = head.find(d.name); at != std::string::npos; at = head.find(d.name, at + 1)) {
      if (at > 0 && IsIdentChar(head[at - 1])) continue;
      size_t after = at + d.name.size();
      while (after < head.size() && head[after] == ' ') ++after;
      if (after < head.size() && head[after] == '(' && Arity(head, after) == d.arity) return true;
    }
  }
  return false;
}

}  // namespace forkscope::analyzer::classify
