// Internal to the SARIF renderer (analyzer/render/sarif*.cpp): the quoted lines of each location and
// the message templates. Not part of the renderers' interface: include sarif.h instead.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/render/sarif.h"

namespace forkscope::analyzer::sarif_internal {

// The lines a log quotes, by path: the whole file from SarifSource::file_text when it gives one,
// else the lines the analysis' hunks hold (new side; old side in a deleted file). Borrowed analysis
// and source outlive it; one render's helper, not shared.
class QuotedLines {
 public:
  QuotedLines(const Analysis& analysis, const SarifSource& source);

  // A physicalLocation: the path as a relative URI under %SRCROOT%, a region at line (a file-wide
  // finding, line < 1, at its first line) with the line's text as snippet — `known` when no file or
  // hunk holds it — and a contextRegion of up to two lines either side when they are known.
  nlohmann::json PhysicalLocation(const std::string& path, int line, const std::string& known = "");

 private:
  // Line number -> text for path; empty when nothing is known.
  const std::map<int, std::string>& LinesOf(const std::string& path);

  const SarifSource& source_;
  std::map<std::string, std::map<int, std::string>> from_hunks_;
  std::map<std::string, std::map<int, std::string>> cache_;
};

// A repository path as a relative URI reference (RFC 3986 pchars and '/' kept, the rest %-encoded).
std::string PathToUri(const std::string& path);

// An absolute URI for a repository location, or "" when it is none: credentials dropped,
// user@host:path (scp-like) as ssh://host/path, an absolute local path as file://.
std::string RepositoryUri(const std::string& location);

// A message template's literal text: SARIF's braces doubled.
std::string EscapeTemplate(const std::string& text);

}  // namespace forkscope::analyzer::sarif_internal
