// Catch2's main, with library logging quietened to warnings (FORKSCOPE_TEST_LOG=debug for more).
#define CATCH_CONFIG_RUNNER
#include <spdlog/spdlog.h>
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
  const char* level = std::getenv("FORKSCOPE_TEST_LOG");
  spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
  return Catch::Session().run(argc, argv);
}
