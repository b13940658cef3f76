// Internal to the classifier (analyzer/classify/): finds the definition that encloses a hunk — the
// C++ function or class, the Python def or decorator — in the file's old or new text, and the lines
// of that definition's body. Pure functions over views of the caller's text; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/model.h"

namespace forkscope::analyzer::classify {

enum class Language { kCxx, kPython, kOther };
Language LanguageOf(std::string_view path);

// A file's old and new text split into lines once, for every hunk of the file.
struct SourceLines {
  std::vector<std::string_view> old_lines;
  std::vector<std::string_view> new_lines;
};

// The enclosing definition of a hunk's first changed line.
struct Enclosing {
  std::string text;  // the header (with its template / decorator lines); "" at file scope
  const std::vector<std::string_view>* lines = nullptr;  // the side it was found on
  int header = -1;  // index of the header line in *lines; -1 when none was found there
  int outer = -1;   // C++: the head of the class a member function is defined in; -1 when none
};

// C++: the nearest function header or class/struct head above the hunk at lower indentation (a
// `template <...>` line that starts the hunk stands for the definition below it; access specifiers
// are not nesting).
// Python: the nearest def/class (with its decorators) or decorator. Other languages, and hunks
// whose source is missing: git's hunk header as text, no lines.
Enclosing FindEnclosing(const SourceLines& source, const Hunk& hunk, Language lang);

// The lines of the enclosing definition from its header to the line that closes it (C++: the line
// whose '}' closes the first brace opened at or after the header; Python: the last line indented
// deeper than the def), at most kMaxBodyLines of them; for a member function defined inside its
// class, the class's lines follow. Empty when no header was found.
inline constexpr size_t kMaxBodyLines = 4000;
std::vector<std::string_view> BodyOf(const Enclosing& enclosing, Language lang);

}  // namespace forkscope::analyzer::classify
