#include "server/jobs/executors/capped_log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace forkscope::server {
namespace {

// Length of the UTF-8 sequence starting with byte c (0 for a continuation or invalid byte).
size_t SequenceLength(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0 && c >= 0xC2) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0 && c <= 0xF4) return 4;
  return 0;
}

bool ValidSequence(const std::string& s, size_t i, size_t len) {
  if (i + len > s.size()) return false;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
  unsigned char c0 = static_cast<unsigned char>(s[i]);
  unsigned char c1 = len > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
  if (len == 3 && ((c0 == 0xE0 && c1 < 0xA0) || (c0 == 0xED && c1 >= 0xA0))) return false;  // overlong, surrogates
  if (len == 4 && ((c0 == 0xF0 && c1 < 0x90) || (c0 == 0xF4 && c1 >= 0x90))) return false;
  return true;
}

}  // namespace

size_t LogTailKeep(size_t cap) { return std::min<size_t>(cap / 4, 64 << 10); }

std::string LogDropMarker(size_t dropped, size_t cap) {
  return "\n[forkscope: " + std::to_string(dropped) + " bytes of output dropped here (log cap " + std::to_string(cap) +
         " bytes)]\n";
}

CappedLog::~CappedLog() {
  if (file_) std::fclose(file_);
}

Status CappedLog::Open() {
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) return Unavailable("cannot write log " + path_ + ": " + std::strerror(errno));
  return Status::Ok();
}

void CappedLog::Write(const char* data, size_t size) {
  if (!file_) return;
  size_t head_limit = cap_ - LogTailKeep(cap_);
  if (head_written_ < head_limit) {
    size_t n = std::min(size, head_limit - head_written_);
    std::fwrite(data, 1, n, file_);
    std::fflush(file_);  // readers of the log API follow the file while the stage runs
    head_written_ += n;
    data += n;
    size -= n;
  }
  if (size == 0) return;
  tail_.append(data, size);
  size_t keep = LogTailKeep(cap_);
  if (tail_.size() > 2 * keep + 65536) {
    size_t cut = tail_.size() - keep;
    dropped_ += cut;
    pending_dropped_ += cut;
    tail_.erase(0, cut);
  }
}

void CappedLog::Note(const std::string& line) {
  if (!file_) return;
  FlushTail();
  std::fputs(line.c_str(), file_);
  if (line.empty() || line.back() != '\n') std::fputc('\n', file_);
  std::fflush(file_);
}

void CappedLog::FlushTail() {
  if (tail_.empty() && pending_dropped_ == 0) return;
  size_t keep = LogTailKeep(cap_);
  if (tail_.size() > keep) {
    dropped_ += tail_.size() - keep;
    pending_dropped_ += tail_.size() - keep;
    tail_.erase(0, tail_.size() - keep);
  }
  if (pending_dropped_ > 0) {
    std::string marker = LogDropMarker(pending_dropped_, cap_);
    pending_dropped_ = 0;
    std::fwrite(marker.data(), 1, marker.size(), file_);
  }
  std::fwrite(tail_.data(), 1, tail_.size(), file_);
  head_written_ = cap_;  // everything further goes through the tail again
  tail_.clear();
}

Status CappedLog::Finish() {
  if (!file_) return Status::Ok();
  FlushTail();
  int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return Unavailable("cannot write log " + path_ + ": " + std::strerror(errno));
  return Status::Ok();
}

Status CapLogFile(const std::string& path, size_t cap) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec || size <= cap) return Status::Ok();
  size_t keep = LogTailKeep(cap);
  size_t head = cap - keep;
  std::ifstream in(path, std::ios::binary);
  std::string head_text(head, '\0'), tail_text(keep, '\0');
  in.read(head_text.data(), static_cast<std::streamsize>(head));
  in.seekg(static_cast<std::streamoff>(size - keep));
  in.read(tail_text.data(), static_cast<std::streamsize>(keep));
  if (!in) return Unavailable("cannot read log " + path);
  in.close();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << head_text << LogDropMarker(size - head - keep, cap) << tail_text;
  if (!out) return Unavailable("cannot rewrite log " + path);
  return Status::Ok();
}

std::string ReadLogTail(const std::string& path, size_t max_lines, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  std::streamoff size = in.tellg();
  std::streamoff start = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(max_bytes));
  in.seekg(start);
  std::string text(static_cast<size_t>(size - start), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  // Drop a partial first line when the read started mid-file, then keep the last max_lines lines.
  if (start > 0) {
    size_t nl = text.find('\n');
    if (nl != std::string::npos && nl + 1 < text.size()) text.erase(0, nl + 1);
  }
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (size_t lines = 0; pos > 0; --pos) {
    if (text[pos - 1] == '\n' && ++lines == max_lines) break;
  }
  return SanitizeUtf8(text.substr(pos));
}

std::string SanitizeUtf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t len = SequenceLength(static_cast<unsigned char>(text[i]));
    if (len > 0 && ValidSequence(text, i, len)) {
      out.append(text, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

size_t Utf8SafeLength(const std::string& text) {
  // Look back at most 3 bytes for the start of a sequence that runs past the end.
  size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    size_t len = SequenceLength(c);
    return (len > back) ? n - back : n;
  }
  return n;
}

}  // namespace forkscope::server
