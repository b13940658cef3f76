#include "server/http/request_head.h"

#include <algorithm>
#include <cctype>

namespace forkscope::server {
namespace {

constexpr size_t kMaxLeadingEmptyLines = 8;

// RFC 9110 5.6.2 token characters.
bool IsTokenChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (std::isalnum(u) != 0) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar); }

// A field value's bytes (RFC 9110 5.5): visible characters, obs-text, space and tab; never NUL, CR or LF.
bool IsFieldValue(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u != 0x7f);
  });
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

RequestHead::State RequestHead::Refuse(int status, std::string code, std::string message) {
  state_ = State::kRefused;
  refusal_ = {status, std::move(code), std::move(message)};
  return state_;
}

RequestHead::State RequestHead::Feed(std::string_view data) {
  while (state_ == State::kIncomplete) {
    const size_t nl = data.find('\n', std::max(pos_, scanned_));
    if (nl == std::string_view::npos) {
      scanned_ = data.size();
      if (data.size() - skip_ > limits_.max_bytes)
        return Refuse(431, "request_header_fields_too_large",
                      "the request line and headers exceed " + std::to_string(limits_.max_bytes) +
                          " bytes (http.max_header_bytes)");
      return state_;
    }
    const size_t start = pos_;
    pos_ = nl + 1;
    if (nl == start || data[nl - 1] != '\r')
      return Refuse(400, "bad_request", "a line of the request head ends with a bare LF (lines end with CRLF)");
    if (pos_ - skip_ > limits_.max_bytes)
      return Refuse(431, "request_header_fields_too_large",
                    "the request line and headers exceed " + std::to_string(limits_.max_bytes) +
                        " bytes (http.max_header_bytes)");
    Line(data.substr(start, nl - 1 - start), start);
  }
  return state_;
}

RequestHead::State RequestHead::Line(std::string_view line, size_t start) {
  if (line.empty() && !seen_request_line_) {
    skip_ = pos_;
    if (skip_ / 2 > kMaxLeadingEmptyLines)
      return Refuse(400, "bad_request", "the request starts with too many empty lines");
    return state_;
  }
  if (line.empty()) {
    end_ = pos_;
    if (content_length_ && has_transfer_encoding_)
      return Refuse(400, "bad_request",
                    "the request has both Content-Length and Transfer-Encoding: its body's length is ambiguous");
    state_ = State::kComplete;
    return state_;
  }
  if (!seen_request_line_) {
    seen_request_line_ = true;
    if (!IsFieldValue(line) || line.find('\t') != std::string_view::npos)
      return Refuse(400, "bad_request", "the request line holds a NUL or control character");
    method_ = std::string(line.substr(0, line.find(' ')));
    if (!IsToken(method_)) return Refuse(400, "bad_request", "the request line does not start with a method");
    return state_;
  }
  return Header(line, start);
}

RequestHead::State RequestHead::Header(std::string_view line, size_t start) {
  if (line.front() == ' ' || line.front() == '\t')
    return Refuse(400, "bad_request", "a header line starts with whitespace (obsolete line folding is refused)");
  if (++headers_ > limits_.max_headers)
    return Refuse(
        431, "request_header_fields_too_large",
        "the request has more than " + std::to_string(limits_.max_headers) + " header fields (http.max_headers)");
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return Refuse(400, "bad_request", "a header line has no ':'");
  const std::string_view name = line.substr(0, colon);
  if (!name.empty() && (name.back() == ' ' || name.back() == '\t'))
    return Refuse(400, "bad_request", "whitespace between a header name and its ':' is refused (RFC 9112 5.1)");
  if (!IsToken(name)) return Refuse(400, "bad_request", "a header name is empty or holds a character a name cannot");
  const std::string_view value = TrimOws(line.substr(colon + 1));
  if (!IsFieldValue(value)) return Refuse(400, "bad_request", "a header value holds a NUL or control character");
  const std::string key = Lower(name);
  if (key == "content-length") {
    const bool digits = std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (value.empty() || value.size() > 18 || !digits)
      return Refuse(400, "bad_request", "Content-Length must be a decimal number of digits only (no sign, no list)");
    const uint64_t length = std::stoull(std::string(value));
    if (content_length_ && *content_length_ != length)
      return Refuse(400, "bad_request", "the request has two different Content-Length headers");
    content_length_ = length;
  } else if (key == "transfer-encoding") {
    if (has_transfer_encoding_) return Refuse(400, "bad_request", "the request has two Transfer-Encoding headers");
    has_transfer_encoding_ = true;
    if (Lower(value) != "chunked")
      return Refuse(400, "bad_request", "the only Transfer-Encoding accepted is 'chunked'");
    chunked_ = true;
  } else if (key == "host") {
    if (has_host_) return Refuse(400, "bad_request", "the request has two Host headers");
    has_host_ = true;
  } else if (key == "expect") {
    expect_continue_ = Lower(value) == "100-continue";
  } else if (key == "range" || key == "if-range") {
    replaced_.push_back({start, start + line.size() + 2, ""});
  } else if (key == "accept-encoding" && Lower(value).find("br") != std::string::npos) {
    // cpp-httplib picks brotli when "br" occurs anywhere in the value: keep the other codings.
    std::string kept;
    std::string_view rest = value;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string_view coding = TrimOws(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (coding.empty() || Lower(coding).find("br") != std::string::npos) continue;
      kept += (kept.empty() ? "" : ", ") + std::string(coding);
    }
    replaced_.push_back({start, start + line.size() + 2, kept.empty() ? "" : "Accept-Encoding: " + kept + "\r\n"});
  }
  return state_;
}

std::string RequestHead::Rewritten(std::string_view data) const {
  std::string out;
  out.reserve(end_ - skip_);
  size_t at = skip_;
  for (const auto& r : replaced_) {
    out.append(data.substr(at, r.from - at));
    out.append(r.with);
    at = r.to;
  }
  out.append(data.substr(at, end_ - at));
  return out;
}

}  // namespace forkscope::server
