#include "storage/store_opener.h"

#include <atomic>
#include <unordered_map>

namespace forkscope::storage {
namespace {

std::atomic<uint64_t> next_opener_id{1};

}  // namespace

StoreOpener::StoreOpener() : id_(next_opener_id.fetch_add(1)) {}

Result<Store*> StoreOpener::ForThread() {
  thread_local std::unordered_map<uint64_t, std::unique_ptr<Store>> stores;
  auto& store = stores[id_];
  if (!store) {
    FS_ASSIGN_OR_RETURN(store, Open());
  }
  return store.get();
}

FileStoreOpener::FileStoreOpener(std::string path, base::Clock& clock) : path_(std::move(path)), clock_(clock) {}

Result<std::unique_ptr<Store>> FileStoreOpener::Open() { return Store::Open(path_, clock_); }

}  // namespace forkscope::storage
