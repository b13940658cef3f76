// HTTP credentials for libgit2 remotes, taken from a URL's userinfo (base/url.h): the one way forkscope
// hands a password or token to git, for a mirror's fetch (mirror.cpp) and a candidate's push (push.cpp).
// The remote itself is always given the URL without them. Internal to analyzer/git; each UrlAuth belongs
// to one transfer on one thread.
#pragma once

#include <git2.h>

#include <string>

namespace forkscope::analyzer::git {

// "https://host:port" of a URL without credentials.
std::string OriginOf(const std::string& url);

struct UrlAuth {
  std::string userinfo;  // "user:token" or "token", given to git only when the server asks; "" = none
  std::string origin;    // "scheme://host[:port]" they belong to (OriginOf of the URL without them)
  std::string source = "in the repository URL";  // where they came from, for the refusal message
  int attempts = 0;
};

// The body of a git_credential_acquire_cb: user and password from auth.userinfo, only for its origin
// (never for a host a redirect points at), only once (refused once, they are wrong: GIT_EAUTH with a
// message: "the server refused the credentials <source>"). GIT_PASSTHROUGH when there is nothing to give.
int AcquireUrlCredentials(UrlAuth& auth, git_credential** out, const char* url, unsigned int allowed);

}  // namespace forkscope::analyzer::git
