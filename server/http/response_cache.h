// A small LRU of rendered response bodies keyed by what makes them unique (an analysis id is
// immutable: a new sync makes a new id). Thread-safe; bodies are shared, never copied per hit.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace forkscope::server {

class ResponseCache {
 public:
  explicit ResponseCache(size_t capacity = 256) : capacity_(capacity) {}
  std::shared_ptr<const std::string> Get(const std::string& key);
  void Put(const std::string& key, std::shared_ptr<const std::string> body);

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const std::string>>;
  const size_t capacity_;
  std::mutex mu_;  // guards the two below
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace forkscope::server
