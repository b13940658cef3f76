#include "server/jobs/executors/capped_log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/text.h"

namespace forkscope::server {

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
  return base::ValidUtf8(std::string_view(text).substr(pos));
}

}  // namespace forkscope::server
