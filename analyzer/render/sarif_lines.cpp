// What a SARIF log quotes (sarif_internal.h): snippets and context regions, the relative URI of a path
// and the absolute URI of the repository. Pure functions over values; one QuotedLines per render.
#include <cstdio>
#include <string_view>

#include "analyzer/render/sarif_internal.h"
#include "base/text.h"

namespace forkscope::analyzer::sarif_internal {
namespace {

using nlohmann::json;

constexpr int kContextLines = 2;  // lines either side of a region in its contextRegion

// "https://user:token@host/x" -> "https://host/x".
std::string WithoutUserinfo(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t host = scheme + 3;
  const size_t slash = url.find('/', host);
  const size_t at = url.rfind('@', slash == std::string::npos ? url.size() : slash);
  if (at == std::string::npos || at < host) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

}  // namespace

QuotedLines::QuotedLines(const Analysis& analysis, const SarifSource& source) : source_(source) {
  for (const FileChange& f : analysis.files) {
    const bool deleted = f.status == FileStatus::kDeleted;
    auto& lines = from_hunks_[f.path];
    for (const Hunk& h : f.hunks)
      for (const DiffLine& l : h.lines) {
        const int number = deleted ? l.old_lineno : l.new_lineno;
        if (number > 0) lines.emplace(number, l.text);
      }
  }
}

const std::map<int, std::string>& QuotedLines::LinesOf(const std::string& path) {
  auto cached = cache_.find(path);
  if (cached != cache_.end()) return cached->second;
  std::map<int, std::string> lines;
  std::optional<std::string> text = source_.file_text ? source_.file_text(path) : std::nullopt;
  if (text) {
    int number = 0;
    for (std::string_view line : base::SplitLines(*text)) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines.emplace(++number, std::string(line));
    }
  } else if (auto hunks = from_hunks_.find(path); hunks != from_hunks_.end()) {
    lines = hunks->second;
  }
  return cache_.emplace(path, std::move(lines)).first->second;
}

json QuotedLines::PhysicalLocation(const std::string& path, int line, const std::string& known) {
  const int at = line < 1 ? 1 : line;
  const auto& lines = LinesOf(path);
  json region = {{"startLine", at}};
  auto it = lines.find(at);
  if (it != lines.end())
    region["snippet"] = {{"text", it->second}};
  else if (!known.empty() && line >= 1)
    region["snippet"] = {{"text", known}};
  json location = {{"artifactLocation", {{"uri", PathToUri(path)}, {"uriBaseId", "%SRCROOT%"}}},
                   {"region", std::move(region)}};
  // The context: the known lines next to the region, without gaps, when there is more than the line.
  int first = at, last = at;
  while (first > 1 && at - first < kContextLines && lines.count(first - 1)) --first;
  while (last - at < kContextLines && lines.count(last + 1)) ++last;
  if (it != lines.end() && (first < at || last > at)) {
    std::string text;
    for (int n = first; n <= last; ++n) text += lines.at(n) + (n < last ? "\n" : "");
    location["contextRegion"] = {{"startLine", first}, {"endLine", last}, {"snippet", {{"text", text}}}};
  }
  return location;
}

std::string PathToUri(const std::string& path) {
  static constexpr std::string_view kKeep = "-._~!$&'()*+,;=:@/";
  std::string uri;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
        kKeep.find(c) != std::string_view::npos) {
      uri.push_back(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      uri += buf;
    }
  }
  return uri;
}

std::string RepositoryUri(const std::string& location) {
  if (location.empty()) return "";
  if (location.find("://") != std::string::npos) return WithoutUserinfo(location);
  if (location[0] == '/') return "file://" + PathToUri(location);
  // scp-like: [user@]host:path, the host before any '/'.
  const size_t colon = location.find(':');
  const size_t slash = location.find('/');
  if (colon != std::string::npos && colon > 0 && (slash == std::string::npos || colon < slash)) {
    std::string host = location.substr(0, colon);
    if (const size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    std::string path = location.substr(colon + 1);
    if (!host.empty() && !path.empty()) return "ssh://" + host + "/" + (path[0] == '/' ? path.substr(1) : path);
  }
  return "";
}

std::string EscapeTemplate(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

}  // namespace forkscope::analyzer::sarif_internal
