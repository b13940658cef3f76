#include "server/app/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace forkscope::server {
namespace {

namespace fs = std::filesystem;

// What to do about an errno met on a path forkscope must write.
std::string Advice(int err, const std::string& other) {
  switch (err) {
    case EACCES:
    case EPERM:
      return "this user (uid " + std::to_string(::getuid()) +
             ") may not read and write there: fix its owner or mode (chown, chmod u+rwx), or " + other;
    case EROFS:
      return "the file system is mounted read-only: " + other + " on a writable one";
    case ENOSPC:
    case EDQUOT:
      return "the disk is full: free some space, or " + other;
    case ENOTDIR:
    case ENOENT:
      return "a part of the path is missing or not a directory: create it, or " + other;
    default:
      return other;
  }
}

std::string Cannot(const std::string& what, const std::string& path, int err, const std::string& other) {
  return "cannot " + what + " " + path + ": " + std::strerror(err) + " (" + Advice(err, other) + ")";
}

// The pid written in a forkscope.lock, "unknown" when there is none.
std::string HolderPid(int fd) {
  char pid[32] = {};
  ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
  std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "unknown";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return holder.empty() ? "unknown" : holder;
}

// Who holds a database: the daemon whose data directory holds it, when its lock file says.
std::string DatabaseHolder(const std::string& database) {
  std::error_code ec;
  const fs::path real = fs::canonical(database, ec);
  if (ec) return "";
  const std::string lock = (real.parent_path() / "forkscope.lock").string();
  int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string pid = HolderPid(fd);
  ::close(fd);
  return " (pid " + pid + ", data directory " + real.parent_path().string() + ")";
}

// Whether files can be created in dir (SQLite makes its -wal and -shm files beside the database; syncs
// make networks/ and mirrors/): one is created and removed.
Status CheckWritableDir(const std::string& dir, const std::string& what, const std::string& other) {
  const std::string probe = dir + "/.forkscope-write-check-" + std::to_string(::getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    return Unavailable(what + " " + dir + " is not writable: cannot create a file in it: " + std::strerror(err) + " (" +
                       Advice(err, other) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

bool SameDirectory(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a.empty() ? "." : a, b.empty() ? "." : b, ec) && !ec;
}

}  // namespace

DataDirLock::DataDirLock(DataDirLock&& other) noexcept
    : lock_fd_(other.lock_fd_), database_fd_(other.database_fd_), networks_fd_(other.networks_fd_) {
  other.lock_fd_ = other.database_fd_ = other.networks_fd_ = -1;
}

Result<DataDirLock> DataDirLock::Acquire(const std::string& data_dir, const std::string& database) {
  const std::string elsewhere = "choose another --data-dir";
  DataDirLock lock;
  const std::string path = data_dir + "/forkscope.lock";
  lock.lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.lock_fd_ < 0) return Unavailable(Cannot("open", path, errno, elsewhere));
  if (::flock(lock.lock_fd_, LOCK_EX | LOCK_NB) != 0)
    return FailedPrecondition("data directory " + data_dir + " is in use by another forkscope (pid " +
                              HolderPid(lock.lock_fd_) + "); stop it or use another --data-dir");
  const std::string self = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.lock_fd_, 0) != 0 ||
      ::pwrite(lock.lock_fd_, self.data(), self.size(), 0) != static_cast<ssize_t>(self.size()))
    return Unavailable(Cannot("write", path, errno, elsewhere));
  FS_RETURN_IF_ERROR(CheckWritableDir(data_dir, "data directory", elsewhere));

  if (!database.empty() && database != ":memory:") {
    const std::string other_db = "set `database` (or FORKSCOPE_DATABASE) to another file";
    const std::string db_dir = fs::path(database).parent_path().string();
    if (!SameDirectory(db_dir, data_dir))
      FS_RETURN_IF_ERROR(CheckWritableDir(db_dir.empty() ? "." : db_dir, "the database's directory", other_db));
    // Created empty when missing (SQLite takes an empty file as a new database), so it is locked from the
    // first start on.
    lock.database_fd_ = ::open(database.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock.database_fd_ < 0) return Unavailable(Cannot("open database", database, errno, other_db));
    if (::flock(lock.database_fd_, LOCK_EX | LOCK_NB) != 0)
      return FailedPrecondition("database " + database + " is in use by another forkscope" + DatabaseHolder(database) +
                                "; stop it, or give this daemon its own database (" + other_db + ")");
  }

  const std::string networks = data_dir + "/networks";
  if (::mkdir(networks.c_str(), 0755) != 0 && errno != EEXIST)
    return Unavailable(Cannot("create", networks, errno, elsewhere));
  lock.networks_fd_ = ::open(networks.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock.networks_fd_ < 0) return Unavailable(Cannot("open", networks, errno, elsewhere));
  if (::flock(lock.networks_fd_, LOCK_EX | LOCK_NB) != 0)
    return FailedPrecondition("networks directory " + networks +
                              " is in use by another forkscope (a link to another data directory's networks?); "
                              "stop it or use another --data-dir");
  return lock;
}

DataDirLock::~DataDirLock() {
  // Closing releases each flock.
  for (int fd : {networks_fd_, database_fd_, lock_fd_})
    if (fd >= 0) ::close(fd);
}

}  // namespace forkscope::server
