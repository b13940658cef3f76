// Stage logs with a size cap: the first part of the output and its last part are kept, what lies
// between is dropped and replaced by one marker line, so a runaway stage cannot fill the disk and the
// error at the end of a long build still shows. One CappedLog per stage, used by one thread.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "base/status.h"

namespace forkscope::server {

// The tail kept after the cap is hit: a quarter of the cap, at most 64 KiB.
size_t LogTailKeep(size_t cap);
// The marker line written where output was dropped.
std::string LogDropMarker(size_t dropped, size_t cap);

class CappedLog {
 public:
  CappedLog(std::string path, size_t cap) : path_(std::move(path)), cap_(cap) {}
  ~CappedLog();
  CappedLog(const CappedLog&) = delete;
  CappedLog& operator=(const CappedLog&) = delete;

  // Creates (truncates) the file.
  Status Open();
  void Write(const char* data, size_t size);
  // Appends a line of forkscope's own (not counted against the cap).
  void Note(const std::string& line);
  // Writes the marker and the kept tail if output was dropped, and closes the file.
  Status Finish();
  size_t dropped() const { return dropped_; }

 private:
  void FlushTail();
  std::string path_;
  size_t cap_;
  FILE* file_ = nullptr;
  size_t head_written_ = 0;
  std::string tail_;  // the newest output once the head is full
  size_t dropped_ = 0;
  size_t pending_dropped_ = 0;  // dropped since the last marker
};

// Applies the same cap to a log file something else wrote (Slurm): rewritten in place when larger.
Status CapLogFile(const std::string& path, size_t cap);

// The last max_lines lines (at most max_bytes) of a file; invalid UTF-8 replaced.
std::string ReadLogTail(const std::string& path, size_t max_lines = 40, size_t max_bytes = 4096);

}  // namespace forkscope::server
