#include "analyzer/git/credentials.h"

#include "base/url.h"

namespace forkscope::analyzer::git {

std::string OriginOf(const std::string& url) {
  const size_t scheme = url.find("://");
  return scheme == std::string::npos ? url : url.substr(0, url.find('/', scheme + 3));
}

int AcquireUrlCredentials(UrlAuth& auth, git_credential** out, const char* url, unsigned int allowed) {
  if (auth.userinfo.empty() || (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) == 0) return GIT_PASSTHROUGH;
  if (url == nullptr || OriginOf(base::SplitCredentials(url).url) != auth.origin) return GIT_PASSTHROUGH;
  // Refused once: the credentials are wrong, and asking again would only replay them.
  if (++auth.attempts > 1) {
    git_error_set_str(GIT_ERROR_NET, ("the server refused the credentials " + auth.source).c_str());
    return GIT_EAUTH;
  }
  const auto [user, password] = base::UserAndPassword(auth.userinfo);
  return git_credential_userpass_plaintext_new(out, user.c_str(), password.c_str());
}

}  // namespace forkscope::analyzer::git
