// A small LRU of rendered response bodies keyed by what makes them unique (an analysis id is
// immutable: a new sync makes a new id; the key is also the response's ETag). Bounded twice: by the
// bytes of the bodies it holds (http.response_cache_bytes) and by a count of entries; a body larger
// than the whole byte budget is never kept. Thread-safe; bodies are shared, never copied per hit.
// GetOrRender is a single flight per key: the first reader of a missing key renders it, readers of
// the same key that arrive meanwhile wait for that one render instead of each rendering their own
// (the first readers of a new multi-megabyte analysis otherwise each load and render it at once).
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <iterator>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/status.h"

namespace forkscope::server {

struct ResponseCacheLimits {
  size_t max_bytes = 32 << 20;  // body and key bytes held at once (http.response_cache_bytes)
  size_t max_entries = 256;     // bounds the bookkeeping of many tiny bodies
};

struct ResponseCacheStats {
  size_t bytes = 0;
  size_t entries = 0;
  size_t renders = 0;  // bodies rendered through GetOrRender (a hit or a joined flight renders nothing)
  size_t waiting = 0;  // readers waiting now for another reader's render of the same key
};

using CachedBody = std::shared_ptr<const std::string>;

class ResponseCache {
 public:
  explicit ResponseCache(ResponseCacheLimits limits = {}) : limits_(limits) {}
  std::shared_ptr<const std::string> Get(const std::string& key);
  // The body under key; when absent, render() makes it once however many readers ask at the same
  // time, and it is kept (within the limits). A failed render is kept by no one: its status goes to
  // the readers waiting on that flight, and the next reader renders again.
  Result<CachedBody> GetOrRender(const std::string& key, const std::function<Result<CachedBody>()>& render);
  // Keeps body under key, evicting the least recently used entries until both limits hold.
  void Put(const std::string& key, std::shared_ptr<const std::string> body);
  // New limits (the daemon sets them from the configuration); evicts at once to meet them.
  void SetLimits(ResponseCacheLimits limits);
  ResponseCacheStats Stats() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const std::string>>;
  static size_t Cost(const Entry& entry) { return entry.first.size() + entry.second->size(); }
  void PutLocked(const std::string& key, std::shared_ptr<const std::string> body);
  void EraseLocked(std::list<Entry>::iterator it);
  void EvictLocked();

  mutable std::mutex mu_;  // guards everything below
  ResponseCacheLimits limits_;
  size_t bytes_ = 0;      // sum of Cost() over lru_
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::unordered_map<std::string, std::shared_future<Result<CachedBody>>> flights_;  // renders under way
  size_t renders_ = 0;
  size_t waiting_ = 0;
};

}  // namespace forkscope::server
