// One daemon per data directory: an exclusive flock on <data_dir>/forkscope.lock, held for the life of
// the process (the kernel drops it when the process dies, so a crash never leaves it stale). The file
// holds the holder's pid, for the message a second daemon prints.
#pragma once

#include <string>

#include "base/status.h"

namespace forkscope::server {

class DataDirLock {
 public:
  // FailedPrecondition "data directory D is in use by another forkscope (pid N)" when held.
  static Result<DataDirLock> Acquire(const std::string& data_dir);
  DataDirLock(DataDirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DataDirLock& operator=(DataDirLock&&) = delete;
  DataDirLock(const DataDirLock&) = delete;
  ~DataDirLock();

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace forkscope::server
