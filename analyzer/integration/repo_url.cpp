#include "analyzer/integration/repo_url.h"

#include <algorithm>
#include <cctype>

#include "base/url.h"

namespace forkscope::analyzer::integration {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string TrimPath(std::string path) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() > 4 && Lower(path.substr(path.size() - 4)) == ".git") path.resize(path.size() - 4);
  while (!path.empty() && path.back() == '/') path.pop_back();
  std::string out;
  for (char c : path)
    if (!(c == '/' && !out.empty() && out.back() == '/')) out += c;
  return out;
}

}  // namespace

std::string RepoUrlKey(const std::string& raw) {
  std::string url = base::SplitCredentials(raw).url;
  if (url.empty()) return "";
  if (url.rfind("file://", 0) == 0) return "file:" + TrimPath(url.substr(7));
  if (url[0] == '/' || url[0] == '.') return "file:" + TrimPath(url);
  std::string host, path;
  const size_t scheme = url.find("://");
  if (scheme != std::string::npos) {
    std::string rest = url.substr(scheme + 3);
    const size_t slash = rest.find('/');
    host = rest.substr(0, slash);
    path = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (size_t colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
  } else {
    // scp-like: [user@]host:path
    const size_t colon = url.find(':');
    if (colon == std::string::npos) return "file:" + TrimPath(url);
    host = url.substr(0, colon);
    path = url.substr(colon + 1);
    if (size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  }
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  if (path.rfind("~", 0) == 0) path.erase(0, 1);
  return Lower(host) + "/" + Lower(TrimPath(path));
}

std::string ResolveSubmoduleUrl(const std::string& superproject_url, const std::string& url) {
  if (url.rfind("./", 0) != 0 && url.rfind("../", 0) != 0) return url;
  std::string base = superproject_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  // Never cut into the scheme and host of a URL ("https://host"): git stops there too.
  size_t floor = 0;
  if (size_t s = base.find("://"); s != std::string::npos) {
    size_t h = base.find('/', s + 3);
    floor = h == std::string::npos ? base.size() : h;
  }
  char sep = '/';
  std::string rest = url;
  while (true) {
    if (rest.rfind("./", 0) == 0) {
      rest = rest.substr(2);
    } else if (rest.rfind("../", 0) == 0) {
      rest = rest.substr(3);
      const size_t cut = base.find_last_of("/:");
      if (cut != std::string::npos && cut >= floor) {
        sep = base[cut];
        base = base.substr(0, cut);
      }
    } else {
      break;
    }
  }
  return base + sep + rest;
}

std::string RepoName(const std::string& url) {
  std::string path = TrimPath(base::SplitCredentials(url).url);
  const size_t cut = path.find_last_of("/:");
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

}  // namespace forkscope::analyzer::integration
