#include "server/jobs/executors/executor.h"

#include "server/jobs/executors/capped_log.h"

namespace forkscope::server {

using nlohmann::json;

json RunnerToJson(const RunnerInfo& r) {
  json gpus = json::array();
  for (const auto& g : r.gpus)
    gpus.push_back(
        {{"index", g.index}, {"name", g.name}, {"memory_mb", g.memory_mb}, {"driver", g.driver}, {"cuda", g.cuda}});
  return json{{"name", r.name},
              {"executor", r.executor},
              {"gpus", gpus},
              {"cuda", r.cuda},
              {"driver", r.driver},
              {"available", r.available},
              {"detail", SanitizeUtf8(r.detail)}};
}

}  // namespace forkscope::server
