// The dashboard's static assets (web/ built into <build>/web, installed under share/forkscope/web):
// where they are, and reading one safely. Stateless apart from the root; thread-safe (const reads
// of the file system only).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace forkscope::server {

// The asset directory: `configured` when set (NotFound naming it unless it holds index.html); else
// the first of <dir of the binary>/web (a build tree), <dir of the binary>/../share/forkscope/web
// and the configured install prefix's share/forkscope/web that holds index.html; "" when none does
// (the API still runs; the dashboard answers 404).
Result<std::string> FindWebDir(const std::string& configured);

// A file ready to send.
struct StaticAsset {
  std::string body;
  std::string content_type;
  std::string etag;  // strong validator from size and modification time
  std::string cache_control;
};

// Whether a URL path is one of the dashboard's client-side routes, answered with index.html:
// "/", "/forks…", "/patterns…", "/drift", "/jobs…", "/alerts". API, health and metrics paths never are.
bool IsDashboardRoute(std::string_view url_path);

// Content type by file extension ("application/octet-stream" when unknown).
std::string ContentTypeOf(std::string_view path);

class StaticFiles {
 public:
  // root: an asset directory from FindWebDir ("" = none).
  explicit StaticFiles(std::string root);

  // The asset a GET of url_path (already percent-decoded) answers: index.html for dashboard routes,
  // the file under root for "/assets/…". InvalidArgument for "." / ".." segments, backslashes, NUL or a
  // path that resolves outside root (symlinks included); NotFound when there is no such file or no root.
  Result<StaticAsset> Load(const std::string& url_path) const;

 private:
  Result<StaticAsset> ReadAsset(const std::string& relative) const;

  std::string root_;  // canonical, or "" when the dashboard is off
};

}  // namespace forkscope::server
