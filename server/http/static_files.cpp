#include "server/http/static_files.h"

#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace forkscope::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* kIndex = "index.html";
constexpr const char* kAssetPrefix = "/assets/";
// Client-side routes; a route matches the prefix exactly or followed by '/'.
constexpr std::array<std::string_view, 6> kRoutes = {"/forks", "/patterns", "/drift",
                                                     "/jobs",  "/alerts",   "/integration"};

bool HoldsIndex(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kIndex, ec);
}

fs::path ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// Rejects what could climb out of the root before the file system is asked at all.
bool SafeSegments(std::string_view relative) {
  if (relative.empty() || relative.find('\\') != std::string_view::npos ||
      relative.find('\0') != std::string_view::npos)
    return false;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    std::string_view part = relative.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// Any "." or ".." segment, backslash or NUL anywhere in a URL path (routes included).
bool ClimbsOut(std::string_view path) {
  if (path.find('\\') != std::string_view::npos || path.find('\0') != std::string_view::npos) return true;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part == "." || part == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

Result<std::string> FindWebDir(const std::string& configured) {
  if (!configured.empty()) {
    if (!HoldsIndex(configured)) return NotFound("web_dir " + configured + " holds no index.html");
    std::error_code ec;
    fs::path canonical = fs::canonical(configured, ec);
    return ec ? configured : canonical.string();
  }
  fs::path exe_dir = ExecutableDir();
  std::vector<fs::path> candidates;
  if (!exe_dir.empty()) {
    candidates.push_back(exe_dir / "web");
    candidates.push_back(exe_dir / ".." / "share" / "forkscope" / "web");
  }
  candidates.push_back(fs::path(FORKSCOPE_INSTALL_DATA_DIR) / "web");
  for (const auto& dir : candidates) {
    std::error_code ec;
    if (HoldsIndex(dir)) return fs::canonical(dir, ec).string();
  }
  return std::string();
}

bool IsDashboardRoute(std::string_view url_path) {
  if (url_path == "/") return true;
  for (std::string_view route : kRoutes) {
    if (url_path.substr(0, route.size()) != route) continue;
    if (url_path.size() == route.size() || url_path[route.size()] == '/') return true;
  }
  return false;
}

std::string ContentTypeOf(std::string_view path) {
  static const std::pair<std::string_view, const char*> kTypes[] = {{".html", "text/html; charset=utf-8"},
                                                                    {".js", "text/javascript; charset=utf-8"},
                                                                    {".mjs", "text/javascript; charset=utf-8"},
                                                                    {".css", "text/css; charset=utf-8"},
                                                                    {".json", "application/json"},
                                                                    {".map", "application/json"},
                                                                    {".svg", "image/svg+xml"},
                                                                    {".png", "image/png"},
                                                                    {".ico", "image/x-icon"},
                                                                    {".txt", "text/plain; charset=utf-8"},
                                                                    {".woff2", "font/woff2"}};
  for (const auto& [ext, type] : kTypes)
    if (path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext) return type;
  return "application/octet-stream";
}

StaticFiles::StaticFiles(std::string root) : root_(std::move(root)) {}

Result<StaticAsset> StaticFiles::Load(const std::string& url_path) const {
  if (root_.empty()) return NotFound("dashboard assets not found; build them (make build) or pass --web-dir");
  if (ClimbsOut(url_path)) return InvalidArgument("path must not hold '.' or '..' segments");
  if (IsDashboardRoute(url_path)) return ReadAsset(kIndex);
  if (url_path.rfind(kAssetPrefix, 0) != 0) return NotFound("no such page " + url_path);
  std::string relative = url_path.substr(1);
  if (!SafeSegments(relative)) return InvalidArgument("asset path must be relative without '.' or '..'");
  return ReadAsset(relative);
}

Result<StaticAsset> StaticFiles::ReadAsset(const std::string& relative) const {
  std::error_code ec;
  fs::path file = fs::canonical(fs::path(root_) / relative, ec);
  if (ec || !fs::is_regular_file(file, ec)) return NotFound("no asset " + relative);
  // A symlink inside the asset tree must not lead out of it.
  std::string resolved = file.string();
  if (resolved.compare(0, root_.size(), root_) != 0 || resolved.size() <= root_.size() || resolved[root_.size()] != '/')
    return InvalidArgument("asset path leaves the asset directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) return NotFound("no asset " + relative);
  std::ostringstream body;
  body << in.rdbuf();
  StaticAsset asset;
  asset.body = body.str();
  asset.content_type = ContentTypeOf(resolved);
  auto mtime = fs::last_write_time(file, ec).time_since_epoch().count();
  std::ostringstream etag;
  etag << '"' << std::hex << asset.body.size() << '-' << mtime << '"';
  asset.etag = etag.str();
  // Unhashed file names: the browser revalidates every time (a cheap 304) and never runs stale code.
  asset.cache_control = "no-cache";
  return asset;
}

}  // namespace forkscope::server
