#include "base/url.h"

#include <cctype>
#include <utility>

namespace forkscope::base {
namespace {

// Where the userinfo of a "scheme://userinfo@host/..." URL starts and ends ('@' excluded); npos when
// there is none.
std::pair<size_t, size_t> UserinfoSpan(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {std::string_view::npos, std::string_view::npos};
  const size_t start = scheme + 3;
  const size_t slash = url.find('/', start);
  const size_t at = url.substr(0, slash).rfind('@');
  if (at == std::string_view::npos || at < start) return {std::string_view::npos, std::string_view::npos};
  return {start, at};
}

bool IsHttp(std::string_view url) {
  std::string scheme;
  for (char c : url.substr(0, url.find("://")))
    scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return url.find("://") != std::string_view::npos && (scheme == "http" || scheme == "https");
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

void ReplaceAll(std::string& text, const std::string& what, std::string_view with) {
  if (what.empty()) return;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + with.size()))
    text.replace(pos, what.size(), with);
}

}  // namespace

UrlCredentials SplitCredentials(const std::string& url) {
  if (!IsHttp(url)) return {url, ""};
  auto [start, at] = UserinfoSpan(url);
  if (start == std::string::npos) return {url, ""};
  return {url.substr(0, start) + url.substr(at + 1), url.substr(start, at - start)};
}

std::string WithUserinfo(const std::string& url, const std::string& userinfo) {
  const size_t scheme = url.find("://");
  if (userinfo.empty() || scheme == std::string::npos) return url;
  return url.substr(0, scheme + 3) + userinfo + "@" + url.substr(scheme + 3);
}

std::string RedactUrl(const std::string& url) {
  auto [start, at] = UserinfoSpan(url);
  if (start == std::string::npos) return url;
  return url.substr(0, start) + std::string(kRedactedUserinfo) + url.substr(at);
}

std::string ScrubSecret(std::string text, const std::string& userinfo) {
  if (userinfo.empty()) return text;
  ReplaceAll(text, userinfo, kRedactedUserinfo);
  // A tool may quote the password or the token alone, raw or decoded; short ones would match too much.
  const size_t colon = userinfo.find(':');
  const auto [user, password] = UserAndPassword(userinfo);
  for (const std::string& part : {colon == std::string::npos ? std::string() : userinfo.substr(colon + 1), password,
                                  colon == std::string::npos ? user : std::string()})
    if (part.size() >= 4) ReplaceAll(text, part, kRedactedUserinfo);
  return text;
}

std::pair<std::string, std::string> UserAndPassword(const std::string& userinfo) {
  const size_t colon = userinfo.find(':');
  if (colon == std::string::npos) return {PercentDecode(userinfo), ""};
  return {PercentDecode(std::string_view(userinfo).substr(0, colon)),
          PercentDecode(std::string_view(userinfo).substr(colon + 1))};
}

}  // namespace forkscope::base
