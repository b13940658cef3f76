// A small LRU of rendered response bodies keyed by what makes them unique (an analysis id is
// immutable: a new sync makes a new id; the key is also the response's ETag). Bounded twice: by the
// bytes of the bodies it holds (http.response_cache_bytes) and by a count of entries; a body larger
// than the whole byte budget is never kept. Thread-safe; bodies are shared, never copied per hit.
#pragma once

#include <cstddef>
#include <iterator>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace forkscope::server {

struct ResponseCacheLimits {
  size_t max_bytes = 32 << 20;  // body and key bytes held at once (http.response_cache_bytes)
  size_t max_entries = 256;     // bounds the bookkeeping of many tiny bodies
};

struct ResponseCacheStats {
  size_t bytes = 0;
  size_t entries = 0;
};

class ResponseCache {
 public:
  explicit ResponseCache(ResponseCacheLimits limits = {}) : limits_(limits) {}
  std::shared_ptr<const std::string> Get(const std::string& key);
  // Keeps body under key, evicting the least recently used entries until both limits hold.
  void Put(const std::string& key, std::shared_ptr<const std::string> body);
  // New limits (the daemon sets them from the configuration); evicts at once to meet them.
  void SetLimits(ResponseCacheLimits limits);
  ResponseCacheStats Stats() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const std::string>>;
  static size_t Cost(const Entry& entry) { return entry.first.size() + entry.second->size(); }
  void EraseLocked(std::list<Entry>::iterator it);
  void EvictLocked();

  mutable std::mutex mu_;  // guards everything below
  ResponseCacheLimits limits_;
  size_t bytes_ = 0;       // sum of Cost() over lru_
  std::list<Entry> lru_;   // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace forkscope::server
