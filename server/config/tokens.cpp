// The small rules of the configuration: token scopes and hashing, webhook kind names, the one fork-name
// and label rules, and the text helpers the other config files share. Pure.
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "server/config/config.h"
#include "server/config/config_internal.h"

namespace forkscope::server {

namespace config_internal {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t extra = 0;
    unsigned min = 0, cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      extra = 1, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

bool HasWhitespaceOrControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

}  // namespace config_internal

const char* TokenScopeName(TokenScope scope) {
  switch (scope) {
    case TokenScope::kRead:
      return "read";
    case TokenScope::kWrite:
      return "write";
    case TokenScope::kAdmin:
      return "admin";
  }
  return "read";
}

Result<TokenScope> ParseTokenScope(std::string_view name) {
  if (name == "read") return TokenScope::kRead;
  if (name == "write") return TokenScope::kWrite;
  if (name == "admin") return TokenScope::kAdmin;
  return InvalidArgument("unknown scope '" + std::string(name) + "' (expected read, write or admin)");
}

const char* WebhookKindName(WebhookKind kind) {
  switch (kind) {
    case WebhookKind::kGeneric:
      return "generic";
    case WebhookKind::kSlack:
      return "slack";
    case WebhookKind::kFeishu:
      return "feishu";
  }
  return "generic";
}

std::string ForkNameProblem(std::string_view name) {
  auto alnum = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (name.empty() || name.size() > 64 || !alnum(name.front()) ||
      !std::all_of(name.begin() + 1, name.end(), [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; }))
    return std::string("must match ") + kForkNamePattern;
  // The name becomes a ref component (refs/forks/<name>/): git's check-ref-format rules.
  if (name.find("..") != std::string_view::npos) return "must not contain '..' (it names refs)";
  if (name.back() == '.') return "must not end with '.' (it names refs)";
  if (name.size() >= 5 && config_internal::Lower(name.substr(name.size() - 5)) == ".lock")
    return "must not end with '.lock' (it names refs)";
  // One-shot runs keep their refs under refs/forks/url-<hash>/ in the same network.
  if (name.size() >= 4 && config_internal::Lower(name.substr(0, 4)) == "url-")
    return "must not start with 'url-' (reserved for the one-shot CLI runs' refs)";
  return "";
}

bool IsValidForkName(std::string_view name) { return ForkNameProblem(name).empty(); }

Status CheckLabel(const std::string& field, std::string_view label) {
  if (label.empty() || label.size() > kMaxLabelBytes)
    return InvalidArgument(field + ": a label has 1 to " + std::to_string(kMaxLabelBytes) + " bytes");
  for (char c : label) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      return InvalidArgument(field + ": a label must not hold control characters (NUL, newline, tab)");
  }
  if (!config_internal::IsUtf8(label)) return InvalidArgument(field + ": a label must be UTF-8");
  if (label.front() == ' ' || label.back() == ' ')
    return InvalidArgument(field + ": a label must not start or end with a space");
  return Status::Ok();
}

Status CheckLabels(const std::string& field, const std::vector<std::string>& labels) {
  if (labels.size() > kMaxLabels) return InvalidArgument(field + ": at most " + std::to_string(kMaxLabels) + " labels");
  for (const std::string& label : labels) FS_RETURN_IF_ERROR(CheckLabel(field, label));
  return Status::Ok();
}

std::string HashToken(const std::string& secret) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest fails only when OpenSSL cannot allocate: nothing sensible is left to do.
  if (EVP_Digest(secret.data(), secret.size(), digest, &length, EVP_sha256(), nullptr) != 1) std::abort();
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

Status CheckBranchName(const std::string& field, std::string_view branch) {
  if (branch.empty()) return Status::Ok();
  auto bad = [&field](const char* why) {
    return InvalidArgument(field + ": not a valid git branch name (" + why + ")");
  };
  if (branch.size() > 255) return bad("longer than 255 characters");
  for (char c : branch) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || std::string_view(" ~^:?*[\\").find(c) != std::string_view::npos)
      return bad("control character, space or one of ~^:?*[\\");
  }
  if (branch == "@") return bad("'@' alone");
  if (branch.find("..") != std::string_view::npos || branch.find("@{") != std::string_view::npos ||
      branch.find("//") != std::string_view::npos)
    return bad("'..', '@{' or '//'");
  if (branch.front() == '-' || branch.front() == '/' || branch.back() == '/' || branch.back() == '.')
    return bad("starts with '-' or '/', or ends with '/' or '.'");
  size_t start = 0;
  while (start < branch.size()) {
    size_t end = branch.find('/', start);
    if (end == std::string_view::npos) end = branch.size();
    std::string_view part = branch.substr(start, end - start);
    if (part.front() == '.') return bad("a component starts with '.'");
    if (part.size() >= 5 && part.substr(part.size() - 5) == ".lock") return bad("a component ends with '.lock'");
    start = end + 1;
  }
  return Status::Ok();
}

Status CheckBaseRevision(const std::string& field, std::string_view base) {
  if (base.empty() || base == "auto") return Status::Ok();
  constexpr const char* kAccepted =
      "; accepted: \"auto\" (search upstream history: a re-imported fork), a commit sha of 7 to 40 hex digits, "
      "or an upstream tag or branch name";
  const bool hex = std::all_of(base.begin(), base.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  if (hex && base.size() > 40) return InvalidArgument(field + ": a sha has at most 40 hex digits" + kAccepted);
  if (hex && base.size() >= 7) return Status::Ok();
  Status name = CheckBranchName(field, base);
  if (!name.ok()) return InvalidArgument(name.message() + kAccepted);
  return Status::Ok();
}

}  // namespace forkscope::server
