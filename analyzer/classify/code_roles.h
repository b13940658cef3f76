// Internal to the classifier (analyzer/classify/): evidence of a C/C++/CUDA header's role that the hunk
// rules cannot see from one hunk — which functions a header's lines declare, and where the
// implementation beside it lives. A header's
// declarations take the layer of what they declare (DOMAIN.md, "Layers by role"). Pure functions;
// thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/model.h"

namespace forkscope::analyzer::classify {

// A C/C++/CUDA header (.h, .hpp, .hh, .hxx, .cuh, .inl).
bool IsCxxHeader(std::string_view path);
// The implementation files a header may declare: same folder, same stem, a source extension
// (csrc/cpu/basis_cpu.h -> csrc/cpu/basis_cpu.cpp, .cc, .cxx, .cu, .c), in that order.
std::vector<std::string> ImplementationPaths(std::string_view header);

// A function a header declares: its unqualified name and how many parameters it takes.
struct Declared {
  std::string name;
  int arity = 0;
};

// The functions declared (prototypes ending in `;`, not definitions) in the hunk's lines of one side:
// the new side (context and '+' lines), or the old side when new_side is false. Preprocessor lines and
// comments are skipped.
std::vector<Declared> DeclaredFunctions(const Hunk& hunk, bool new_side);

// Whether text names one of the declared functions followed by `(` (a cheap look before a source is read).
bool MentionsAny(std::string_view text, const std::vector<Declared>& declared);

// Whether the top-level definition in lines[begin, end) defines one of the declared functions: its
// name followed by `(` before the definition's first `{`, with as many parameters.
bool DefinesAny(const std::vector<std::string_view>& lines, size_t begin, size_t end,
                const std::vector<Declared>& declared);

}  // namespace forkscope::analyzer::classify
