// One daemon per data directory, per database and per networks directory: exclusive flocks, held for the
// life of the process (the kernel drops them when the process dies, so a crash never leaves one stale),
// on <data_dir>/forkscope.lock (which holds the holder's pid, for the message a second daemon prints),
// on the database file itself and on the <data_dir>/networks directory. The last two lock the inodes,
// so a second daemon that reaches them by another path — `database =` naming the first's forkscope.db,
// a symbolic link, a bind mount — is refused too, before it opens anything.
//
// Before locking it checks what start-up needs, so that a bad directory is one clear line (the path,
// the OS's reason and what to do) instead of SQLite's "attempt to write a readonly database": the data
// directory and the database's directory can be written (a file is created and removed in each), and
// the database file, when it exists, opens for reading and writing.
//
// The database file's descriptor stays open until the lock is destroyed, after every SQLite connection
// closed: closing a descriptor of a file drops the process's POSIX locks on it, SQLite's included
// (flock locks are apart from them on a local file system). Not thread-safe; one per daemon.
#pragma once

#include <string>

#include "base/status.h"

namespace forkscope::server {

class DataDirLock {
 public:
  // FailedPrecondition "data directory D is in use by another forkscope (pid N)" when held, and the same
  // for the database and the networks directory; Unavailable naming the path, the OS's reason and what
  // to do when a directory or the database cannot be used. database "" or ":memory:" locks no file.
  static Result<DataDirLock> Acquire(const std::string& data_dir, const std::string& database);
  DataDirLock(DataDirLock&& other) noexcept;
  DataDirLock& operator=(DataDirLock&&) = delete;
  DataDirLock(const DataDirLock&) = delete;
  ~DataDirLock();

 private:
  DataDirLock() = default;
  int lock_fd_ = -1;
  int database_fd_ = -1;
  int networks_fd_ = -1;
};

}  // namespace forkscope::server
