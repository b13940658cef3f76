#include "server/app/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace forkscope::server {

Result<DataDirLock> DataDirLock::Acquire(const std::string& data_dir) {
  const std::string path = data_dir + "/forkscope.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Unavailable("cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return FailedPrecondition("data directory " + data_dir + " is in use by another forkscope (pid " + holder +
                              "); stop it or use another --data-dir");
  }
  const std::string self = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, self.data(), self.size(), 0) != static_cast<ssize_t>(self.size())) {
    ::close(fd);
    return Unavailable("cannot write " + path + ": " + std::strerror(errno));
  }
  return DataDirLock(fd);
}

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace forkscope::server
