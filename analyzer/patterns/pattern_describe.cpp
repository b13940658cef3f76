#include "analyzer/patterns/pattern_describe.h"

#include <algorithm>
#include <string>

namespace forkscope::analyzer {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool IsCi(std::string_view path) {
  return StartsWith(path, ".github/") || StartsWith(path, "ci/") || Contains(path, "/ci/") ||
         StartsWith(path, ".circleci/") || StartsWith(path, ".gitlab-ci") || StartsWith(path, "azure-pipelines") ||
         StartsWith(path, "Jenkinsfile") || StartsWith(path, ".buildkite/");
}

bool IsDocs(FileKind kind, std::string_view path) {
  return kind == FileKind::kDoc || StartsWith(path, "docs/") || StartsWith(path, "doc/");
}

std::string Trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::string Shortened(std::string s, size_t max = 70) {
  if (s.size() <= max) return s;
  size_t cut = max - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "…";
}

// A comment line of the file kind (mining drops them from the fingerprint, so the words do too).
bool IsComment(FileKind kind, std::string_view text) {
  if (kind == FileKind::kCxx) return StartsWith(text, "//") || StartsWith(text, "/*") || StartsWith(text, "*");
  if (kind == FileKind::kDoc || kind == FileKind::kOther) return false;  // prose: '#' opens a heading
  return StartsWith(text, "#");
}

// The first line of the example with this origin that says something (not blank, a lone brace or a
// comment).
std::string FirstLine(const std::vector<std::string>& lines, char origin, FileKind kind) {
  for (const auto& line : lines) {
    if (line.empty() || line[0] != origin) continue;
    std::string text = Trimmed(std::string_view(line).substr(1));
    if (text.size() > 1 && !IsComment(kind, text)) return Shortened(text);
  }
  return "";
}

// The fingerprint's first line with this marker, its tokens put back together.
std::string FirstTokenLine(const HunkFingerprint& fp, const char* marker) {
  for (size_t i = 0; i < fp.tokens.size(); ++i) {
    if (fp.tokens[i] != marker) continue;
    std::string out;
    for (size_t j = i + 1; j < fp.tokens.size() && fp.tokens[j] != "@+" && fp.tokens[j] != "@-"; ++j)
      out += (out.empty() ? "" : " ") + fp.tokens[j];
    return Shortened(out);
  }
  return "";
}

std::string Lines(int n) { return std::to_string(n) + (n == 1 ? " line" : " lines"); }

}  // namespace

const char* PatternActionName(PatternAction action) {
  switch (action) {
    case PatternAction::kAdds:
      return "adds";
    case PatternAction::kEdits:
      return "edits";
    case PatternAction::kRemoves:
      return "removes";
  }
  return "edits";
}

PatternAction ActionOf(const HunkFingerprint& fp) {
  const bool adds = std::find(fp.tokens.begin(), fp.tokens.end(), "@+") != fp.tokens.end();
  const bool removes = std::find(fp.tokens.begin(), fp.tokens.end(), "@-") != fp.tokens.end();
  if (adds && removes) return PatternAction::kEdits;
  return removes ? PatternAction::kRemoves : PatternAction::kAdds;
}

bool IsCiOrDocs(FileKind kind, std::string_view path) { return IsCi(path) || IsDocs(kind, path); }

std::string PlaceIdOf(FileKind kind, Layer layer, std::string_view path) {
  if (IsCi(path)) {
    if (StartsWith(path, ".github/workflows/")) return "ci-workflows";
    return kind == FileKind::kShell || kind == FileKind::kPython ? "ci-scripts" : "ci-config";
  }
  if (IsDocs(kind, path)) return "docs";
  switch (kind) {
    case FileKind::kPython:
      if (layer == Layer::kBuild) return "python-build";
      return StartsWith(path, "tests/") || Contains(path, "/tests/") || Contains(path, "test_") ? "python-tests"
                                                                                                : "python";
    case FileKind::kCxx:
      if (layer == Layer::kKernel) return "kernel";
      return layer == Layer::kCppCompat ? "cpp-host" : "cpp";
    case FileKind::kCMake:
      return "cmake";
    case FileKind::kToml:
      return "toml";
    case FileKind::kIni:
      return "ini";
    case FileKind::kShell:
      return "shell";
    case FileKind::kYaml:
      return "yaml";
    case FileKind::kText:
      return "text";
    case FileKind::kDoc:
      return "docs";
    case FileKind::kOther:
      break;
  }
  return "other";
}

std::string PlaceWords(std::string_view id) {
  static constexpr std::pair<std::string_view, std::string_view> kWords[] = {
      {"ci-workflows", "CI workflows"},
      {"ci-scripts", "CI scripts"},
      {"ci-config", "CI configuration"},
      {"docs", "docs"},
      {"python-build", "Python build files"},
      {"python-tests", "Python tests"},
      {"python", "Python code"},
      {"kernel", "kernel code"},
      {"cpp-host", "C++ bindings and host code"},
      {"cpp", "C++/CUDA code"},
      {"cmake", "CMake files"},
      {"toml", "pyproject/TOML build configuration"},
      {"ini", "setup.cfg/INI configuration"},
      {"shell", "shell scripts and Makefiles"},
      {"yaml", "YAML configuration"},
      {"text", "requirements and text files"},
  };
  for (const auto& [key, words] : kWords)
    if (key == id) return std::string(words);
  return "other files";
}

PatternDescription DescribeMinedPattern(const HunkFingerprint& fp, std::string_view example_path,
                                        const std::vector<std::string>& example_lines) {
  const int added = static_cast<int>(std::count(fp.tokens.begin(), fp.tokens.end(), "@+"));
  const int removed = static_cast<int>(std::count(fp.tokens.begin(), fp.tokens.end(), "@-"));
  const std::string place_id = PlaceIdOf(fp.kind, fp.layer, example_path);
  const std::string place = PlaceWords(place_id);
  auto line = [&](char origin, const char* marker) {
    std::string text = FirstLine(example_lines, origin, fp.kind);
    return text.empty() ? FirstTokenLine(fp, marker) : text;
  };
  switch (ActionOf(fp)) {
    case PatternAction::kAdds: {
      const std::string first = line('+', "@+");
      return {"Adds " + Lines(added) + " to " + place + ", e.g. `" + first + "`",
              "pattern.adds",
              {{"lines", std::to_string(added)}, {"place", place_id}, {"line", first}}};
    }
    case PatternAction::kRemoves: {
      const std::string first = line('-', "@-");
      return {"Deletes " + Lines(removed) + " from " + place + ", e.g. `" + first + "`",
              "pattern.removes",
              {{"lines", std::to_string(removed)}, {"place", place_id}, {"line", first}}};
    }
    case PatternAction::kEdits:
      break;
  }
  const std::string from = line('-', "@-");
  const std::string to = line('+', "@+");
  return {"Changes " + place + ": `" + from + "` → `" + to + "` (" + Lines(removed) + " replaced by " +
              std::to_string(added) + ")",
          "pattern.edits",
          {{"removed", std::to_string(removed)},
           {"added", std::to_string(added)},
           {"place", place_id},
           {"from", from},
           {"to", to}}};
}

int MigrationRank(std::optional<PatternAction> action, bool ci_or_docs) {
  const bool removes = action && *action == PatternAction::kRemoves;
  if (!removes) return ci_or_docs && action ? 1 : 0;
  return ci_or_docs ? 3 : 2;
}

}  // namespace forkscope::analyzer
