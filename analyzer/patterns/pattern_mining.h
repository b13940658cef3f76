// Mining reusable migration patterns: every hunk is normalised into a token sequence — identifiers
// outside the framework vocabulary become $ID, string literals $STR (keeping the vocabulary words
// they carry: "torch>=2.1" -> $STR(torch)), number literals $NUM, comments dropped, whitespace
// folded; in docs and unknown files words are kept, lower-cased — that keeps the hunk's layer and
// the file's kind. Its fingerprint is a hash of that
// sequence; two fingerprints nearly match when the Jaccard similarity of their token shingles
// (k-grams) reaches a threshold, and a banded MinHash signature (LSH) finds the candidates without
// comparing every pair. Pure functions over value types; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

// Tunables, defaulted here and overridable in the rules file's "mining" section.
struct MiningOptions {
  int shingle = 3;                // tokens per shingle
  double threshold = 0.6;         // Jaccard at or above which two fingerprints nearly match
  int min_tokens = 4;             // hunks with fewer normalised tokens (a blank line, a brace) are not mined
  int max_tokens = 4000;          // longer hunks (whole added files) are cut here
  std::vector<std::string> keep;  // identifiers kept verbatim besides the built-in vocabulary

  // A hash of every option: fingerprints made under another version are mined again from scratch.
  std::string Version() const;
};

// Reads the rules file's "mining" object ({"shingle", "threshold", "min_tokens", "max_tokens",
// "keep": [identifier]}) over the defaults; InvalidArgument naming "<origin>: mining.<key>".
Status ParseMiningOptions(const nlohmann::json& section, const std::string& origin, MiningOptions& out);

// The LSH layout: kMinHashBands bands of kMinHashRows MinHash values each. Two fingerprints with
// Jaccard 0.6 share a band with probability 1 - (1 - 0.6^3)^20 > 0.99; at 0.3, 0.42.
inline constexpr int kMinHashBands = 20;
inline constexpr int kMinHashRows = 3;

// What a file is written in, for comment syntax and for grouping: C++ and CUDA are one kind.
enum class FileKind { kPython, kCxx, kCMake, kToml, kIni, kShell, kYaml, kText, kDoc, kOther };
const char* FileKindName(FileKind kind);  // "py", "cxx", "cmake", "toml", "ini", "sh", "yaml", "text", "doc", "other"
FileKind FileKindOf(std::string_view path);
FileKind FileKindFromName(std::string_view name);  // kOther for unknown names

struct HunkFingerprint {
  std::string hash;  // 16 hex digits; "" when the hunk has fewer than min_tokens tokens
  Layer layer = Layer::kOther;
  FileKind kind = FileKind::kOther;
  // The normalised tokens. Each changed line opens with a marker token, "@+" or "@-".
  std::vector<std::string> tokens;

  // "layer/kind": only fingerprints of one scope are compared.
  std::string Scope() const;
  // Tokens joined by spaces, a newline before each line marker; TokensFromText reverses it.
  std::string Text() const;
};

// Whether an identifier belongs to the vocabulary (keywords, framework names, API names, options.keep).
// In code, API names that double as variable names ("stream", "device") are kept only after '.',
// '::' or '->' or as keyword arguments; in string literals every vocabulary word is kept.
bool IsVocabulary(const MiningOptions& options, std::string_view identifier);

// Normalises the hunk's '+' and '-' lines (context lines are not part of a pattern).
HunkFingerprint Fingerprint(const MiningOptions& options, std::string_view path, Layer layer,
                            const std::vector<DiffLine>& lines);
std::vector<std::string> TokensFromText(std::string_view text);

// Sorted, unique 64-bit hashes of the token k-grams (one shingle of all tokens when fewer than k).
std::vector<uint64_t> Shingles(const MiningOptions& options, const std::vector<std::string>& tokens);
// |a ∩ b| / |a ∪ b| of two sorted unique sets; 1 for two empty sets.
double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);
// kMinHashBands * kMinHashRows values.
std::vector<uint64_t> MinHash(const std::vector<uint64_t>& shingles);
// One bucket per band: a hash of the band's rows and its index.
std::vector<uint64_t> LshBuckets(const std::vector<uint64_t>& signature);

// "mined.<layer>.<first 12 hex digits of the hash>": the id of a pattern seeded by fp.
std::string MinedPatternId(const HunkFingerprint& fp);
// One line for people: what the hunk adds and removes, tokens rendered back to code.
std::string DescribeFingerprint(const HunkFingerprint& fp);

}  // namespace forkscope::analyzer
