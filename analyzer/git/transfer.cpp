#include "analyzer/git/transfer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "base/text.h"
#include "base/url.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

bool IsUrl(const std::string& s) {
  return s.find("://") != std::string::npos ||
         (s.find('@') != std::string::npos && s.find(':') != std::string::npos && s.find('/') != 0);
}

}  // namespace

std::string RedactUrl(const std::string& url) { return base::RedactUrl(url); }

Result<std::string> NormalizeLocation(const std::string& location) {
  if (location.empty()) return InvalidArgument("empty repository location");
  if (location.find_first_of("\n\r\t") != std::string::npos)
    return InvalidArgument("repository location contains control characters");
  if (IsUrl(location)) {
    static const char* kSchemes[] = {"https://", "http://", "ssh://", "git://", "file://"};
    bool known = location.find("://") == std::string::npos;  // scp-like user@host:path
    for (const char* s : kSchemes) known = known || location.rfind(s, 0) == 0;
    if (!known) return InvalidArgument("unsupported URL scheme in '" + RedactUrl(location) + "'");
    return location;
  }
  std::error_code ec;
  fs::path p = fs::absolute(location, ec);
  if (ec || !fs::exists(p, ec)) return NotFound("no repository at '" + location + "'");
  return p.lexically_normal().string();
}

std::string LegacyMirrorPathFor(const std::string& data_dir, const std::string& location) {
  // Named by the URL without credentials: a password never becomes a file name, and a credential
  // change keeps the mirror.
  const std::string url = base::SplitCredentials(location).url;
  std::string slug;
  std::string tail = url.size() > 48 ? url.substr(url.size() - 48) : url;
  for (char c : tail) slug += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  while (!slug.empty() && slug.front() == '_') slug.erase(slug.begin());
  return (fs::path(data_dir) / "mirrors" / (slug + "-" + base::Fnv1a64Hex(url).substr(0, 10) + ".git")).string();
}

RepoLock::RepoLock(const std::string& repo_path) {
  fd_ = ::open((repo_path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

RepoLock::~RepoLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace forkscope::analyzer::git
