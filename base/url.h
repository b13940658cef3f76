// Credentials in repository URLs. A URL's userinfo ("user:token@" in https://user:token@host/x.git) is
// a secret: it is fetched with and never stored, logged, shown or used to name anything. These helpers
// take it out, put it back for a fetch, and show where one was ("https://***@host/x.git"). Pure.
#pragma once

#include <string>
#include <string_view>

namespace forkscope::base {

// What stands for a userinfo in a redacted URL.
inline constexpr std::string_view kRedactedUserinfo = "***";

// A URL split into its form without userinfo and the userinfo itself ("" when none). Only http and
// https URLs are split: there the userinfo is a password or token, given to git as HTTP credentials.
// Other schemes (ssh://git@host/x, scp-like git@host:x) keep their user name, which is no secret.
struct UrlCredentials {
  std::string url;       // "https://host/x.git"
  std::string userinfo;  // "user:token", "token" or ""
};
UrlCredentials SplitCredentials(const std::string& url);

// url (without userinfo, as SplitCredentials returns it) with userinfo put back; url when userinfo is "".
std::string WithUserinfo(const std::string& url, const std::string& userinfo);

// The URL to show: any scheme's userinfo replaced by "***" ("https://***@host/x.git"). Local paths and
// URLs without userinfo come back unchanged.
std::string RedactUrl(const std::string& url);

// text with every occurrence of the userinfo, and of its password part, replaced by "***": for error
// messages of the tools that fetched with it.
std::string ScrubSecret(std::string text, const std::string& userinfo);

// The user name and password of a userinfo ("user:pass" -> user, pass; "token" -> token, ""), each
// percent-decoded as git decodes them.
std::pair<std::string, std::string> UserAndPassword(const std::string& userinfo);

}  // namespace forkscope::base
