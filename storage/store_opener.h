// Where services get their Store connections: an injected StoreOpener instead of a database path,
// so tests can hand them a fault-injecting one (tests/support/faulty_store.h). One connection per
// thread, never shared. Thread contract: Open() and ForThread() are safe from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "storage/store.h"

namespace forkscope::storage {

class StoreOpener {
 public:
  StoreOpener();
  virtual ~StoreOpener() = default;
  StoreOpener(const StoreOpener&) = delete;
  StoreOpener& operator=(const StoreOpener&) = delete;

  // A new connection; the caller owns it.
  virtual Result<std::unique_ptr<Store>> Open() = 0;
  // The calling thread's own connection from this opener, opened on first use and kept for the
  // thread's life (a failed open is retried on the next call).
  Result<Store*> ForThread();

 private:
  const uint64_t id_;  // unique per opener over the process' life, so a thread's cache never mixes openers
};

// Opens the SQLite file at path (created and migrated on first open), reading time from clock.
class FileStoreOpener final : public StoreOpener {
 public:
  explicit FileStoreOpener(std::string path, base::Clock& clock = base::SystemClock());
  Result<std::unique_ptr<Store>> Open() override;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  base::Clock& clock_;
};

}  // namespace forkscope::storage
