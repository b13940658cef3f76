// Addresses in the configuration: the repository URL policy (security.allowed_hosts, local repositories)
// and the http.listen address. Repository URLs are parsed the strict way: anything another URL parser
// might read differently from ours is refused rather than guessed. Pure.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include "server/config/config.h"
#include "server/config/config_internal.h"

namespace forkscope::server {

using config_internal::HasWhitespaceOrControl;
using config_internal::Lower;

namespace {

// Where a remote repository lives: its host (lower-case, without userinfo or port) and the path after
// it (without the one '/' that separates them).
struct RemoteLocation {
  std::string host;
  std::string path;
};

const char kAmbiguousUrl[] = "repository URL has an invalid or ambiguous host part";

// "user@host:port" (URLs) or "user@host" (scp-like) to the lower-case host. Anything a URL parser might
// read differently from ours ("a@b@c", "evil?@good", percent-encoding) is refused rather than guessed.
Result<std::string> ParseAuthority(std::string_view authority, bool allow_port) {
  if (authority.find_first_of("?#\\%/") != std::string_view::npos) return InvalidArgument(kAmbiguousUrl);
  const size_t at_count = std::count(authority.begin(), authority.end(), '@');
  if (at_count > 1) return InvalidArgument(kAmbiguousUrl);
  if (at_count == 1) authority.remove_prefix(authority.find('@') + 1);
  std::string_view host = authority;
  std::string_view port_part;
  bool bracketed = false;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return InvalidArgument(kAmbiguousUrl);
    port_part = host.substr(close + 1);
    host = host.substr(1, close - 1);
    bracketed = true;
  } else if (const size_t colon = host.find(':'); colon != std::string_view::npos) {
    port_part = host.substr(colon);
    host = host.substr(0, colon);
  }
  if (!port_part.empty()) {
    const bool digits =
        port_part.size() > 1 && port_part.front() == ':' &&
        std::all_of(port_part.begin() + 1, port_part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!allow_port || !digits) return InvalidArgument(kAmbiguousUrl);
  }
  const std::string lower = Lower(host);
  const bool valid_chars = std::all_of(lower.begin(), lower.end(), [&](char c) {
    const bool base = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    return base || (bracketed && c == ':') || (!bracketed && c == '_');
  });
  if (lower.empty() || !valid_chars) return InvalidArgument(kAmbiguousUrl);
  return lower;
}

// Dot segments or percent-encoding could make "host/owner/../other" leave the allowed owner.
Status CheckRemotePath(std::string_view path) {
  if (path.find_first_of("%\\?#") != std::string_view::npos) {
    return InvalidArgument("repository URL path contains '%', '\\', '?' or '#'");
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == "..") return InvalidArgument("repository URL path contains '.' or '..'");
    start = end + 1;
  }
  return Status::Ok();
}

// nullopt for a local repository (a path, or file://).
Result<std::optional<RemoteLocation>> SplitRepositoryUrl(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end != std::string::npos) {
    const std::string scheme = Lower(url.substr(0, scheme_end));
    if (scheme == "file") return std::optional<RemoteLocation>();
    if (scheme != "https" && scheme != "http" && scheme != "ssh" && scheme != "git") {
      return FailedPrecondition("repository URL scheme '" + scheme + "' is not allowed (use https, http, ssh or git)");
    }
    const std::string rest = url.substr(scheme_end + 3);
    const size_t slash = rest.find('/');
    // Only http(s) credentials are kept apart from the URL and given to git on demand (base/url.h).
    const size_t at = rest.substr(0, slash).find('@');
    const bool has_password = at != std::string::npos && rest.substr(0, at).find(':') != std::string::npos;
    if (scheme != "https" && scheme != "http" && has_password)
      return InvalidArgument("a password in an " + scheme + ":// URL is not accepted; use an SSH key (or https)");
    FS_ASSIGN_OR_RETURN(std::string host, ParseAuthority(std::string_view(rest).substr(0, slash), true));
    std::string path = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    FS_RETURN_IF_ERROR(CheckRemotePath(path));
    return std::optional<RemoteLocation>(RemoteLocation{std::move(host), std::move(path)});
  }
  // scp-like "[user@]host:path", as git reads it: a ':' before any '/'.
  const size_t colon = url.find(':');
  if (colon == std::string::npos || colon > url.find('/')) return std::optional<RemoteLocation>();
  FS_ASSIGN_OR_RETURN(std::string host, ParseAuthority(std::string_view(url).substr(0, colon), false));
  std::string path = url.substr(colon + 1);
  FS_RETURN_IF_ERROR(CheckRemotePath(path));
  return std::optional<RemoteLocation>(RemoteLocation{std::move(host), std::move(path)});
}

}  // namespace

Result<std::pair<std::string, int>> ParseListen(const std::string& listen) {
  auto bad = [&](const std::string& why) { return InvalidArgument("'" + listen + "': " + why); };
  std::string host;
  std::string_view port;
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return bad("expected [IPV6]:PORT");
    }
    host = listen.substr(1, close - 1);
    port = std::string_view(listen).substr(close + 2);
    const bool valid = host.find(':') != std::string::npos && std::all_of(host.begin(), host.end(), [](char c) {
                         return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
                       });
    if (!valid) return bad("'" + host + "' is not an IPv6 address");
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos) return bad("expected HOST:PORT");
    host = listen.substr(0, colon);
    port = std::string_view(listen).substr(colon + 1);
    if (host.find(':') != std::string::npos) return bad("IPv6 addresses need brackets, e.g. [::1]:8080");
    if (host.empty()) return bad("missing host (0.0.0.0 listens on all interfaces)");
    const bool valid = std::all_of(host.begin(), host.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    });
    if (!valid) return bad("'" + host + "' is not a host name or address");
  }
  const bool digits = !port.empty() && port.size() <= 5 &&
                      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int number = digits ? std::atoi(std::string(port).c_str()) : -1;
  if (number < 0 || number > 65535) return bad("port must be a number from 0 to 65535");
  return std::make_pair(std::move(host), number);
}

Status CheckRepositoryAllowed(const SecurityConfig& security, const std::string& url) {
  if (url.empty()) return InvalidArgument("repository URL is empty");
  // The URL itself is never echoed: it may carry credentials.
  if (HasWhitespaceOrControl(url)) return InvalidArgument("repository URL contains whitespace or control characters");
  FS_ASSIGN_OR_RETURN(std::optional<RemoteLocation> remote, SplitRepositoryUrl(url));
  if (!remote) {
    if (security.allow_local_repos) return Status::Ok();
    return FailedPrecondition(
        "local repositories (paths and file:// URLs) are refused; allow them with --allow-local-repos or "
        "security.allow_local_repos = true");
  }
  const std::string owner = remote->path.substr(0, remote->path.find('/'));
  bool host_known = false;
  for (const std::string& allowed : security.allowed_hosts) {
    std::string_view entry = allowed;
    while (!entry.empty() && entry.back() == '/') entry.remove_suffix(1);
    const size_t slash = entry.find('/');
    std::string entry_host = Lower(entry.substr(0, slash));
    if (entry_host.size() > 2 && entry_host.front() == '[' && entry_host.back() == ']') {
      entry_host = entry_host.substr(1, entry_host.size() - 2);
    }
    if (entry_host.empty() || entry_host != remote->host) continue;
    host_known = true;
    if (slash == std::string_view::npos) return Status::Ok();
    if (!owner.empty() && entry.substr(slash + 1) == owner) return Status::Ok();
  }
  if (host_known) {
    return FailedPrecondition("repository owner '" + remote->host + "/" + owner + "' is not in security.allowed_hosts");
  }
  return FailedPrecondition("repository host '" + remote->host + "' is not in security.allowed_hosts");
}

}  // namespace forkscope::server
