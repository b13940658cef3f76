#include "server/http/request_checks.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

namespace forkscope::server {
namespace {

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    unsigned min = 0;
    unsigned cp = 0;
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
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

bool HasControl(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

std::string TextProblem(std::string_view what, std::string_view text) {
  if (!IsUtf8(text)) return std::string(what) + " is not valid UTF-8 after percent-decoding";
  if (HasControl(text)) return std::string(what) + " holds control characters after percent-decoding";
  return "";
}

}  // namespace

std::string TargetProblem(const httplib::Request& req) {
  const std::string& target = req.target;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] != '%') continue;
    if (i + 2 >= target.size() || !IsHex(target[i + 1]) || !IsHex(target[i + 2]))
      return "the request target has invalid percent-encoding ('%' must be followed by two hex digits)";
  }
  if (std::string why = TextProblem("the path", req.path); !why.empty()) return why;
  for (const auto& [key, value] : req.params) {
    if (std::string why = TextProblem("a query parameter name", key); !why.empty()) return why;
    if (std::string why = TextProblem("query parameter '" + Printable(key) + "'", value); !why.empty()) return why;
  }
  return "";
}

bool HasBody(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  const std::string length = req.get_header_value("Content-Length");
  return !length.empty() && length.find_first_not_of('0') != std::string::npos;
}

BodyRead ReadBody(const httplib::Request& req, const httplib::ContentReader& reader, RequestBody rule,
                  size_t max_bytes) {
  auto& request = const_cast<httplib::Request&>(req);  // see the header: the connection's own object
  if (!HasBody(req)) {
    if (rule == RequestBody::kRequired && !req.has_header("Content-Length"))
      return {411, "length_required",
              "this endpoint reads a request body: send it with a Content-Length header (curl -d @body.json "
              "-H 'Content-Type: application/json', or --data-binary @file), or chunked"};
    return {};
  }
  // cpp-httplib would parse a multipart body into req.files on its own, unbounded; no route takes one.
  if (req.is_multipart_form_data()) {
    request.headers.erase("Content-Type");
    DrainBody(req, reader);
    return {415, "unsupported_media_type", "multipart bodies are not accepted: send JSON or a diff"};
  }
  std::string body;
  size_t seen = 0;
  const bool keep = rule != RequestBody::kIgnored;
  const bool read = reader([&](const char* data, size_t n) {
    seen += n;
    if (seen <= max_bytes) {
      if (keep) body.append(data, n);
      return true;
    }
    std::string().swap(body);  // over the cap: nothing more is kept, the rest only counted
    return true;
  });
  // A Content-Length over the cap never reaches the receiver: cpp-httplib skips that body itself.
  const unsigned long long declared = std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10);
  if (seen > max_bytes || (!read && declared > max_bytes))
    return {413, "payload_too_large",
            "request body too large: the limit is " + std::to_string(max_bytes) + " bytes (http.max_body_bytes)"};
  if (!read)
    return {400, "bad_request",
            "the request body could not be read (broken chunked encoding, or the connection closed)"};
  request.body = std::move(body);
  return {};
}

void DrainBody(const httplib::Request& req, const httplib::ContentReader& reader) {
  if (!HasBody(req)) return;
  (void)reader([](const char*, size_t) { return true; });
}

std::string Printable(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : text.substr(0, 200)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return text.size() > 200 ? out + "..." : out;
}

}  // namespace forkscope::server
