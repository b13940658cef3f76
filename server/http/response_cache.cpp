#include "server/http/response_cache.h"

#include "base/memory.h"

namespace forkscope::server {
namespace {

constexpr size_t kTrimAfterBytes = 1 << 20;

}  // namespace

std::shared_ptr<const std::string> ResponseCache::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

Result<CachedBody> ResponseCache::GetOrRender(const std::string& key,
                                              const std::function<Result<CachedBody>()>& render) {
  std::unique_lock<std::mutex> lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  if (auto it = flights_.find(key); it != flights_.end()) {
    std::shared_future<Result<CachedBody>> joined = it->second;
    ++waiting_;
    lock.unlock();  // wait for the flight without holding the cache
    joined.wait();
    lock.lock();
    --waiting_;
    return joined.get();
  }
  std::promise<Result<CachedBody>> flight;
  flights_.emplace(key, flight.get_future().share());
  ++renders_;
  lock.unlock();
  Result<CachedBody> result = Internal("rendering " + key + " failed");
  try {
    result = render();
  } catch (...) {
    lock.lock();
    flights_.erase(key);
    flight.set_exception(std::current_exception());
    throw;
  }
  // A large body was rendered from a DOM of many small nodes (the JSON of a 4,000-file analysis: tens
  // of MiB), all freed by now; glibc keeps them in this thread's arena until a trim, and a soak's RSS
  // rose by that much between two syncs. Renders are single flights, a few per new analysis.
  if (result.ok() && (*result)->size() >= kTrimAfterBytes) base::ReleaseFreedMemory();
  lock.lock();
  if (result.ok()) PutLocked(key, *result);
  flights_.erase(key);
  flight.set_value(result);
  return result;
}

void ResponseCache::Put(const std::string& key, std::shared_ptr<const std::string> body) {
  std::lock_guard<std::mutex> lock(mu_);
  PutLocked(key, std::move(body));
}

void ResponseCache::PutLocked(const std::string& key, std::shared_ptr<const std::string> body) {
  if (!body) return;
  if (auto it = index_.find(key); it != index_.end()) EraseLocked(it->second);
  Entry entry(key, std::move(body));
  // One body over the whole budget would evict everything and then itself: it is served, not kept.
  if (Cost(entry) > limits_.max_bytes || limits_.max_entries == 0) return;
  bytes_ += Cost(entry);
  lru_.push_front(std::move(entry));
  index_[key] = lru_.begin();
  EvictLocked();
}

void ResponseCache::SetLimits(ResponseCacheLimits limits) {
  std::lock_guard<std::mutex> lock(mu_);
  limits_ = limits;
  EvictLocked();
}

ResponseCacheStats ResponseCache::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {bytes_, lru_.size(), renders_, waiting_};
}

void ResponseCache::EraseLocked(std::list<Entry>::iterator it) {
  bytes_ -= Cost(*it);
  index_.erase(it->first);
  lru_.erase(it);
}

void ResponseCache::EvictLocked() {
  while (!lru_.empty() && (bytes_ > limits_.max_bytes || lru_.size() > limits_.max_entries))
    EraseLocked(std::prev(lru_.end()));
}

}  // namespace forkscope::server
