// Tests for server/http/response_cache: the rendered-analysis cache is bounded by bytes and entries.
#include "server/http/response_cache.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/wait.h"

namespace forkscope::server {
namespace {

std::shared_ptr<const std::string> Body(size_t size, char fill = 'x') {
  return std::make_shared<const std::string>(size, fill);
}

TEST_CASE("the response cache keeps at most its byte budget, least recently used out first", "[server][http][cache]") {
  ResponseCache cache(ResponseCacheLimits{1000, 100});
  cache.Put("a", Body(300));
  cache.Put("b", Body(300));
  cache.Put("c", Body(300));
  CHECK(cache.Stats().entries == 3);
  CHECK(cache.Stats().bytes == 903);  // bodies and keys
  REQUIRE(cache.Get("a"));            // a is now the most recent
  cache.Put("d", Body(300));          // 1204 > 1000: b, the least recent, goes
  CHECK(cache.Get("b") == nullptr);
  CHECK(cache.Get("a"));
  CHECK(cache.Get("c"));
  CHECK(cache.Get("d"));
  CHECK(cache.Stats().bytes <= 1000);

  SECTION("replacing a key counts its new size, not both") {
    cache.Put("a", Body(10));
    CHECK(cache.Stats().bytes == 11 + 301 + 301);
    CHECK(*cache.Get("a") == std::string(10, 'x'));
  }
  SECTION("a body larger than the whole budget is not kept and evicts nothing") {
    cache.Put("huge", Body(5000));
    CHECK(cache.Get("huge") == nullptr);
    CHECK(cache.Stats().entries == 3);
  }
  SECTION("lowering the limits evicts at once; 0 bytes turns the cache off") {
    cache.SetLimits({400, 100});
    CHECK(cache.Stats().entries == 1);
    CHECK(cache.Get("d"));
    cache.SetLimits({0, 100});
    CHECK(cache.Stats().entries == 0);
    cache.Put("e", Body(1));
    CHECK(cache.Get("e") == nullptr);
  }
}

TEST_CASE("the response cache bounds its entry count too", "[server][http][cache]") {
  ResponseCache cache(ResponseCacheLimits{1 << 20, 2});
  cache.Put("a", Body(1));
  cache.Put("b", Body(1));
  cache.Put("c", Body(1));
  CHECK(cache.Stats().entries == 2);
  CHECK(cache.Get("a") == nullptr);
  CHECK(cache.Stats().bytes == 4);
}

TEST_CASE("a body handed out stays valid after its entry is evicted", "[server][http][cache]") {
  ResponseCache cache(ResponseCacheLimits{100, 10});
  cache.Put("a", Body(60, 'a'));
  auto held = cache.Get("a");
  cache.Put("b", Body(60, 'b'));
  CHECK(cache.Get("a") == nullptr);
  REQUIRE(held);
  CHECK(*held == std::string(60, 'a'));
}

TEST_CASE("readers of a missing key share one render (single flight)", "[server][http][cache]") {
  ResponseCache cache;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> rendered{0};
  auto render = [&]() -> Result<CachedBody> {
    ++rendered;
    released.wait();  // the first render is held until every other reader waits for it
    // (a reader reaching its wait announces nothing: the test polls the cache's own count)
    return Body(100, 'r');
  };
  constexpr int kReaders = 8;
  std::vector<std::future<Result<CachedBody>>> readers;
  for (int i = 0; i < kReaders; ++i)
    readers.push_back(std::async(std::launch::async, [&] { return cache.GetOrRender("k", render); }));
  REQUIRE(testing::PollUntil([&] { return cache.Stats().waiting == kReaders - 1; }, std::chrono::seconds(10)));
  CHECK(rendered == 1);
  release.set_value();
  for (auto& r : readers) {
    auto body = r.get();
    REQUIRE(body.ok());
    CHECK(**body == std::string(100, 'r'));
  }
  CHECK(rendered == 1);
  CHECK(cache.Stats().renders == 1);
  CHECK(cache.Stats().waiting == 0);
  CHECK(cache.Get("k"));  // kept for the next reader
  CHECK(cache.GetOrRender("k", render).ok());
  CHECK(rendered == 1);
}

TEST_CASE("a failed render reaches its waiters, is not kept, and the next reader renders again",
          "[server][http][cache]") {
  ResponseCache cache;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  int attempts = 0;
  auto failing = [&]() -> Result<CachedBody> {
    ++attempts;
    released.wait();
    return NotFound("analysis 7 is gone");
  };
  auto first = std::async(std::launch::async, [&] { return cache.GetOrRender("k", failing); });
  REQUIRE(testing::PollUntil([&] { return cache.Stats().renders == 1; }, std::chrono::seconds(10)));
  auto second = std::async(std::launch::async, [&] { return cache.GetOrRender("k", failing); });
  REQUIRE(testing::PollUntil([&] { return cache.Stats().waiting == 1; }, std::chrono::seconds(10)));
  release.set_value();
  for (auto* r : {&first, &second}) {
    auto body = r->get();
    REQUIRE_FALSE(body.ok());
    CHECK(body.status().message() == "analysis 7 is gone");
  }
  CHECK(attempts == 1);
  CHECK(cache.Get("k") == nullptr);
  auto again = cache.GetOrRender("k", [] { return Result<CachedBody>(Body(3)); });
  REQUIRE(again.ok());
  CHECK(cache.Stats().renders == 2);
  CHECK(cache.Get("k"));
}

}  // namespace
}  // namespace forkscope::server
