// Forks that share commits sync at the same time (issue 14, item 7): their analyses are one row per
// commit pair, written idempotently, so no task's final save meets a FOREIGN KEY failure and every
// task ends terminal. The real daemon, real repositories, 20 syncs of 8 forks at once.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "storage/store.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

json Body(const httplib::Result& r) { return r ? json::parse(r->body, nullptr, false) : json(); }

// A byte-for-byte copy of a repository: the same commits under another URL.
std::string CopyRepo(const std::string& src, const std::string& dest) {
  REQUIRE(RunCommand("cp -a " + ShellQuote(src) + " " + ShellQuote(dest)).status == 0);
  return dest;
}

// 8 forks over 2 commit pairs and 2 upstream URLs: every fork shares its analysis with three others.
// Each: name -> its POST /api/v1/forks body.
std::vector<std::pair<std::string, json>> EightForks(const TempDir& tmp) {
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  GitRepo native = BuildNativeFork(up.path(), tmp.Sub("native"));
  const std::string up2 = CopyRepo(up.path(), tmp.Sub("upstream-mirror"));
  std::vector<std::pair<std::string, json>> forks;
  for (int i = 0; i < 4; ++i) {
    const std::string u = i % 2 == 0 ? up.path() : up2;
    for (const auto& [kind, repo] : {std::pair{"compat-", &compat}, std::pair{"native-", &native}}) {
      const std::string name = kind + std::to_string(i);
      forks.push_back(
          {name, json{{"name", name}, {"fork_url", CopyRepo(repo->path(), tmp.Sub(name))}, {"upstream_url", u}}});
    }
  }
  return forks;
}

// Fires count syncs at once, one client thread each, over the forks in turn; the task ids answered.
std::set<std::string> SyncAtOnce(const Daemon& d, const std::vector<std::pair<std::string, json>>& forks, int count) {
  std::mutex mu;
  std::set<std::string> task_ids;
  std::vector<std::thread> clients;
  std::atomic<int> accepted{0};
  for (int i = 0; i < count; ++i) {
    clients.emplace_back([&, i] {
      auto client = d.Client();
      const std::string path = "/api/v1/forks/" + forks[static_cast<size_t>(i) % forks.size()].first + "/sync";
      auto r = client->Post(path.c_str(), httplib::Headers{{"Authorization", std::string("Bearer ") + kAdmin}}, "",
                            "application/json");
      if (!r || r->status != 202) return;
      ++accepted;
      std::lock_guard<std::mutex> lock(mu);
      task_ids.insert(Body(r)["task"].get<std::string>());
    });
  }
  for (auto& t : clients) t.join();
  CHECK(accepted == count);
  return task_ids;
}

// The final JSON of every task that ended within two minutes.
std::map<std::string, json> WaitAll(httplib::Client& c, const std::set<std::string>& task_ids) {
  std::map<std::string, json> final_state;
  PollUntil(
      [&] {
        for (const auto& id : task_ids) {
          json t = Body(c.Get(("/api/v1/tasks/" + id).c_str()));
          if (t["state"] == "succeeded" || t["state"] == "failed") final_state[id] = t;
        }
        return final_state.size() == task_ids.size();
      },
      std::chrono::seconds(120));
  return final_state;
}

}  // namespace

TEST_CASE("daemon: 20 concurrent syncs of 8 forks sharing commits and upstreams all end, without FOREIGN KEY errors",
          "[server][api][concurrency]") {
  TempDir tmp;
  std::vector<std::pair<std::string, json>> forks = EightForks(tmp);
  WriteFile(tmp.Sub("forkscope.toml"), "workers = 8\nscheduler = false\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  for (const auto& [name, body] : forks) {
    auto r = c->Post("/api/v1/forks", httplib::Headers{{"Authorization", std::string("Bearer ") + kAdmin}}, body.dump(),
                     "application/json");
    REQUIRE(r);
    REQUIRE(r->status == 201);
  }

  const std::set<std::string> task_ids = SyncAtOnce(d, forks, 20);
  std::map<std::string, json> final_state = WaitAll(*c, task_ids);
  CHECK(final_state.size() == task_ids.size());
  for (const auto& [id, t] : final_state) {
    INFO(t.dump());
    CHECK(t["state"] == "succeeded");
    CHECK(t["error"].is_null());
  }
  // Every fork points at a stored analysis, shown with its own URL; two analyses in all.
  std::set<int64_t> analyses;
  for (const auto& [name, body] : forks) {
    json fork = Body(c->Get(("/api/v1/forks/" + name).c_str()));
    REQUIRE(fork["latest_analysis_id"].is_number_integer());
    analyses.insert(fork["latest_analysis_id"].get<int64_t>());
    json analysis = Body(c->Get(("/api/v1/forks/" + name + "/analysis").c_str()));
    CHECK(analysis["fork"]["url"] == body["fork_url"]);
  }
  CHECK(analyses.size() == 2);
  d.Terminate();
  const std::string log = ReadFile(d.log_path());
  CHECK(log.find("FOREIGN KEY") == std::string::npos);
  CHECK(log.find("task save failed") == std::string::npos);
  auto store = storage::Store::Open(tmp.Sub("data/forkscope.db"));
  REQUIRE(store.ok());
  CHECK(*(*store)->IntegrityCheck() == "ok");
}

}  // namespace forkscope::testing
