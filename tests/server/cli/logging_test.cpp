// The log formatter the CLI installs: a value with a newline cannot end its line and forge the next.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <catch2/catch.hpp>

#include <sstream>

#include "base/log_escape.h"

namespace forkscope::testing {

TEST_CASE("logging: control characters in values are escaped, one message one line", "[server][cli][logging]") {
  CHECK(base::EscapeControl("a\nb\rc\td\x01"
                            "e\x7f") == "a\\nb\\rc\\td\\x01e\\x7f");
  CHECK(base::EscapeControl("分支 ok") == "分支 ok");
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("escape-test", sink);
  logger.set_formatter(base::EscapingFormatter("%l %v"));
  logger.warn("sync failed fork={} branch={}", "x", "paddle\n2024-01-01T00:00:00.000 info forged=1");
  logger.info("plain line");
  CHECK(out.str() ==
        "warning sync failed fork=x branch=paddle\\n2024-01-01T00:00:00.000 info forged=1\ninfo plain line\n");
}

}  // namespace forkscope::testing
