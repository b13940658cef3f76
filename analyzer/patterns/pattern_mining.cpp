// Hunk normalisation: a small hand-written tokenizer per file kind (comments, strings, numbers,
// identifiers, punctuation), the vocabulary that survives abstraction, and fingerprints.
#include "analyzer/patterns/pattern_mining.h"
#include "base/text.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include <re2/re2.h>

namespace forkscope::analyzer {
namespace {

// Keywords of the languages seen in these repositories, framework roots and API names distinctive
// enough never to be someone's variable: always kept. Everything else is $ID, except kMemberWords.
// clang-format off
constexpr std::string_view kVocabulary[] = {
    // Python
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "not", "or",
    "pass", "raise", "return", "try", "while", "with", "yield", "self", "os", "sys", "environ", "getattr", "hasattr",
    "isinstance", "warnings", "pytest", "importlib", "import_module",
    // C++ and CUDA
    "auto", "bool", "case", "catch", "char", "const", "constexpr", "default", "delete", "do", "double", "enum",
    "extern", "false", "float", "friend", "inline", "int", "long", "namespace", "new", "nullptr", "operator",
    "private", "protected", "public", "short", "signed", "sizeof", "static", "static_cast", "reinterpret_cast",
    "struct", "switch", "template", "this", "throw", "true", "typedef", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "int64_t", "int32_t", "size_t", "include", "define", "ifdef", "ifndef", "endif",
    "pragma", "__global__", "__device__", "__host__", "__shared__", "__forceinline__", "std",
    // frameworks and their modules
    "torch", "paddle", "paddlepaddle", "at", "c10", "aten", "ATen", "triton", "tl", "tilelang", "cute", "cutlass",
    "cuda", "cudnn", "nccl", "nvshmem", "phi", "pybind11", "py", "numpy", "np", "ctypes", "setuptools",
    // the compat layer and build helpers
    "enable_compat", "enable_torch_proxy", "cpp_extension", "CUDAExtension", "CppExtension", "BuildExtension", "setup",
    "find_packages", "ext_modules", "cmdclass", "include_dirs", "library_dirs", "libraries", "extra_compile_args",
    "extra_link_args", "define_macros", "sources", "install_requires", "requires", "dependencies", "gpu",
    "find_package", "include_directories", "target_link_libraries", "target_compile_definitions", "add_definitions",
    "CMAKE_CUDA_ARCHITECTURES", "TORCH_CUDA_ARCH_LIST", "PADDLE_WITH_CUDA", "CDLL", "RTLD_GLOBAL",
    // torch/paddle APIs that migrations touch
    "_dynamo", "custom_op", "register_fake", "load_library", "current_stream", "set_device", "current_device",
    "init_process_group", "all_reduce", "all_gather", "get_rank", "get_world_size", "ProcessGroup", "to_dlpack",
    "from_dlpack", "_PD_GetInner", "Tensor", "TensorOptions", "empty_like", "CUDAPlace", "getCurrentCUDAStream",
    "getDefaultCUDAStream", "CUDAStream", "CUDAStreamGuard", "CUDAGuard", "OptionalCUDAGuard", "cudaStream_t",
    "cudaStreamWaitEvent", "record_stream", "data_ptr", "TORCH_LIBRARY", "TORCH_LIBRARY_IMPL", "TORCH_LIBRARY_FRAGMENT",
    "TORCH_CHECK", "TORCH_EXTENSION_NAME", "PYBIND11_MODULE", "module_local", "PD_BUILD_OP", "PD_CHECK", "PD_THROW",
    "PD_KERNEL", "SetKernelFn", "is_available", "assert_close",
};
// clang-format on

// API names that are also everyday variable names (a `stream`, a `device`): kept only where they
// are an API — after '.', '::' or '->', or as a keyword argument inside a call (`dim=1`).
// clang-format off
constexpr std::string_view kMemberWords[] = {
    "compat", "scope", "utils", "extension", "ops", "library", "dynamo", "profiler", "compile", "compiler", "impl",
    "Library", "device", "stream", "Stream", "Event", "synchronize", "distributed", "dist", "barrier", "dlpack",
    "experimental", "empty", "zeros", "ones", "tensor", "place", "jit", "autotune", "axis", "dim", "dtype",
    "float32", "float16", "bfloat16", "testing", "mark", "skipif", "Inputs", "Outputs",
};
// clang-format on

bool InBuiltinVocabulary(std::string_view word) {
  static const std::unordered_set<std::string_view> kSet(std::begin(kVocabulary), std::end(kVocabulary));
  return kSet.count(word) > 0;
}

bool IsMemberWord(std::string_view word) {
  static const std::unordered_set<std::string_view> kSet(std::begin(kMemberWords), std::end(kMemberWords));
  return kSet.count(word) > 0;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsWordToken(std::string_view t) { return !t.empty() && (IsIdentChar(t[0]) || t[0] == '$'); }

bool HashComments(FileKind kind) {
  switch (kind) {
    case FileKind::kPython:
    case FileKind::kCMake:
    case FileKind::kToml:
    case FileKind::kIni:
    case FileKind::kShell:
    case FileKind::kYaml:
    case FileKind::kText:
      return true;
    default:
      return false;
  }
}

// Docs and unknown files are prose: their words are the content, so they are kept (lower-cased)
// rather than abstracted, or any two sentences of the same length would match.
bool ProseKind(FileKind kind) { return kind == FileKind::kDoc || kind == FileKind::kOther; }

std::string Lower(std::string_view word) {
  std::string out(word);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "$STR" or "$STR(w1,w2)" with the vocabulary words inside the literal, in order, once each.
std::string AbstractString(const MiningOptions& options, std::string_view body) {
  std::vector<std::string_view> words;
  for (size_t i = 0; i < body.size();) {
    if (!IsIdentStart(body[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < body.size() && IsIdentChar(body[end])) ++end;
    std::string_view word = body.substr(i, end - i);
    if (IsVocabulary(options, word) && std::find(words.begin(), words.end(), word) == words.end())
      words.push_back(word);
    i = end;
  }
  if (words.empty()) return "$STR";
  std::string out = "$STR(";
  for (size_t i = 0; i < words.size(); ++i) out += (i ? "," : "") + std::string(words[i]);
  return out + ")";
}

// Tokenises one line. Block comments spanning lines are handled by skipping lines that open with
// "*" or "/*" (the usual layout); a string left open runs to the end of the line.
class LineTokenizer {
 public:
  LineTokenizer(const MiningOptions& options, FileKind kind, std::vector<std::string>& out)
      : options_(options), kind_(kind), out_(out) {}

  void Run(std::string_view s) {
    const bool cxx = kind_ == FileKind::kCxx;
    size_t i = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (cxx && s.compare(i, 2, "//") == 0) {
        return;
      } else if (cxx && s.compare(i, 2, "/*") == 0) {
        const size_t end = s.find("*/", i + 2);
        if (end == std::string_view::npos) return;
        i = end + 2;
      } else if (c == '#' && HashComments(kind_)) {
        return;
      } else if (c == '"' || c == '\'' || StringPrefix(s, i)) {
        i = String(s, i);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        while (i < s.size() && (IsIdentChar(s[i]) || s[i] == '.')) ++i;
        out_.push_back("$NUM");
      } else if (IsIdentStart(c)) {
        size_t end = i;
        while (end < s.size() && IsIdentChar(s[end])) ++end;
        std::string_view word = s.substr(i, end - i);
        if (ProseKind(kind_))
          out_.push_back(Lower(word));
        else
          out_.push_back(Kept(word, s, end) ? std::string(word) : "$ID");
        i = end;
      } else if (s.compare(i, 2, "::") == 0 || s.compare(i, 2, "->") == 0) {
        out_.push_back(std::string(s.substr(i, 2)));
        i += 2;
      } else {
        depth_ += c == '(' ? 1 : c == ')' && depth_ > 0 ? -1 : 0;
        out_.push_back(std::string(1, c));
        ++i;
      }
    }
  }

 private:
  // Whether an identifier ending at s[end] stays verbatim (see kMemberWords).
  bool Kept(std::string_view word, std::string_view s, size_t end) const {
    if (InBuiltinVocabulary(word) || std::find(options_.keep.begin(), options_.keep.end(), word) != options_.keep.end())
      return true;
    if (!IsMemberWord(word)) return false;
    const std::string& prev = out_.empty() ? std::string() : out_.back();
    if (prev == "." || prev == "::" || prev == "->") return true;
    const size_t next = s.find_first_not_of(" \t", end);
    return depth_ > 0 && next != std::string_view::npos && s[next] == '=' && s.compare(next, 2, "==") != 0;
  }

  // Python's r"", b"", f"", rb"" ... prefixes belong to the literal.
  bool StringPrefix(std::string_view s, size_t i) const {
    if (kind_ != FileKind::kPython) return false;
    size_t j = i;
    while (j < s.size() && j - i < 2 && std::strchr("rRbBfFuU", s[j]) != nullptr) ++j;
    const bool word_before = i > 0 && IsIdentChar(s[i - 1]);
    return j > i && j < s.size() && (s[j] == '"' || s[j] == '\'') && !word_before;
  }

  size_t String(std::string_view s, size_t i) {
    while (s[i] != '"' && s[i] != '\'') ++i;  // skip a prefix
    const char quote = s[i];
    const bool triple = s.compare(i, 3, std::string(3, quote)) == 0;
    const size_t open = i + (triple ? 3 : 1);
    size_t j = open;
    while (j < s.size()) {
      if (s[j] == '\\') {
        j += 2;
        continue;
      }
      if (s[j] == quote && (!triple || s.compare(j, 3, std::string(3, quote)) == 0)) break;
      ++j;
    }
    const size_t close = std::min(j, s.size());
    out_.push_back(AbstractString(options_, s.substr(open, close - open)));
    return close >= s.size() ? s.size() : close + (triple ? 3 : 1);
  }

  const MiningOptions& options_;
  FileKind kind_;
  std::vector<std::string>& out_;
  int depth_ = 0;  // open parentheses on this line
};

// A line inside or opening a block comment; "/* x */ code" is code.
bool IsCommentLine(FileKind kind, std::string_view text) {
  if (kind != FileKind::kCxx) return false;
  size_t i = text.find_first_not_of(" \t");
  if (i == std::string_view::npos) return false;
  if (text[i] == '*') return true;
  if (text.compare(i, 2, "/*") != 0) return false;
  const size_t close = text.find("*/", i + 2);
  return close == std::string_view::npos || text.find_first_not_of(" \t", close + 2) == std::string_view::npos;
}

std::string RenderLine(const std::vector<std::string>& tokens, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin && IsWordToken(tokens[i]) && IsWordToken(tokens[i - 1])) out += ' ';
    out += tokens[i];
  }
  return out;
}

std::string Shorten(std::string s, size_t max) {
  if (s.size() <= max) return s;
  s.resize(max - 3);
  return s + "...";
}

}  // namespace

std::string MiningOptions::Version() const {
  std::string text = std::to_string(shingle) + "|" + std::to_string(static_cast<int>(threshold * 1000)) + "|" +
                     std::to_string(min_tokens) + "|" + std::to_string(max_tokens) + "|v1";
  for (const auto& k : keep) text += "|" + k;
  return base::Fnv1a64Hex(text).substr(0, 12);
}

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kPython:
      return "py";
    case FileKind::kCxx:
      return "cxx";
    case FileKind::kCMake:
      return "cmake";
    case FileKind::kToml:
      return "toml";
    case FileKind::kIni:
      return "ini";
    case FileKind::kShell:
      return "sh";
    case FileKind::kYaml:
      return "yaml";
    case FileKind::kText:
      return "text";
    case FileKind::kDoc:
      return "doc";
    case FileKind::kOther:
      return "other";
  }
  return "other";
}

FileKind FileKindOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (base == "CMakeLists.txt") return FileKind::kCMake;
  if (base == "Makefile" || base.rfind("Dockerfile", 0) == 0) return FileKind::kShell;
  const size_t dot = base.rfind('.');
  if (dot == std::string_view::npos) return FileKind::kOther;
  const std::string_view ext = base.substr(dot + 1);
  auto is = [&](std::initializer_list<std::string_view> exts) {
    return std::find(exts.begin(), exts.end(), ext) != exts.end();
  };
  if (is({"py", "pyi"})) return FileKind::kPython;
  if (is({"cu", "cuh", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inl"})) return FileKind::kCxx;
  if (is({"cmake"})) return FileKind::kCMake;
  if (is({"toml"})) return FileKind::kToml;
  if (is({"cfg", "ini"})) return FileKind::kIni;
  if (is({"sh", "bash", "mk"})) return FileKind::kShell;
  if (is({"yml", "yaml"})) return FileKind::kYaml;
  if (is({"txt", "in"})) return FileKind::kText;
  if (is({"md", "rst"})) return FileKind::kDoc;
  return FileKind::kOther;
}

FileKind FileKindFromName(std::string_view name) {
  for (FileKind kind : {FileKind::kPython, FileKind::kCxx, FileKind::kCMake, FileKind::kToml, FileKind::kIni,
                        FileKind::kShell, FileKind::kYaml, FileKind::kText, FileKind::kDoc})
    if (name == FileKindName(kind)) return kind;
  return FileKind::kOther;
}

bool IsVocabulary(const MiningOptions& options, std::string_view identifier) {
  if (InBuiltinVocabulary(identifier) || IsMemberWord(identifier)) return true;
  return std::find(options.keep.begin(), options.keep.end(), identifier) != options.keep.end();
}

std::string HunkFingerprint::Scope() const { return std::string(LayerName(layer)) + "/" + FileKindName(kind); }

std::string HunkFingerprint::Text() const {
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0) out += (tokens[i] == "@+" || tokens[i] == "@-") ? '\n' : ' ';
    out += tokens[i];
  }
  return out;
}

std::vector<std::string> TokensFromText(std::string_view text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\n') ++end;
    if (end > i) tokens.emplace_back(text.substr(i, end - i));
    i = end;
  }
  return tokens;
}

HunkFingerprint Fingerprint(const MiningOptions& options, std::string_view path, Layer layer,
                            const std::vector<DiffLine>& lines) {
  HunkFingerprint fp;
  fp.layer = layer;
  fp.kind = FileKindOf(path);
  size_t significant = 0;
  std::vector<std::string> line_tokens;
  for (const auto& line : lines) {
    if (line.origin != '+' && line.origin != '-') continue;
    if (IsCommentLine(fp.kind, line.text)) continue;
    line_tokens.clear();
    LineTokenizer(options, fp.kind, line_tokens).Run(line.text);
    if (line_tokens.empty()) continue;
    fp.tokens.push_back(line.origin == '+' ? "@+" : "@-");
    fp.tokens.insert(fp.tokens.end(), line_tokens.begin(), line_tokens.end());
    significant += line_tokens.size();
    if (fp.tokens.size() >= static_cast<size_t>(options.max_tokens)) break;
  }
  if (fp.tokens.size() > static_cast<size_t>(options.max_tokens)) fp.tokens.resize(options.max_tokens);
  if (significant < static_cast<size_t>(std::max(options.min_tokens, 1))) return fp;
  fp.hash = base::Fnv1a64Hex(fp.Scope() + "|" + fp.Text());
  return fp;
}

std::string MinedPatternId(const HunkFingerprint& fp) {
  return std::string("mined.") + LayerName(fp.layer) + "." + fp.hash.substr(0, 12);
}

std::string DescribeFingerprint(const HunkFingerprint& fp) {
  std::vector<std::string> added, removed;
  size_t start = 0;
  for (size_t i = 1; i <= fp.tokens.size(); ++i) {
    if (i < fp.tokens.size() && fp.tokens[i] != "@+" && fp.tokens[i] != "@-") continue;
    std::string line = RenderLine(fp.tokens, start + 1, i);
    (fp.tokens[start] == "@+" ? added : removed).push_back(Shorten(line, 60));
    start = i;
  }
  std::string out = std::string(LayerName(fp.layer)) + " (" + FileKindName(fp.kind) + "):";
  auto list = [&out](const char* verb, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    out += std::string(" ") + verb + " `" + lines[0] + "`";
    if (lines.size() > 1) out += " and " + std::to_string(lines.size() - 1) + " more line(s)";
    out += ";";
  };
  list("adds", added);
  list("removes", removed);
  if (out.back() == ';') out.pop_back();
  return out;
}

}  // namespace forkscope::analyzer
