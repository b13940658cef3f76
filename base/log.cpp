#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <array>
#include <mutex>

#include "base/log_escape.h"

namespace forkscope::base {
namespace {

constexpr int kAreas = static_cast<int>(LogArea::kCli) + 1;

struct Loggers {
  std::mutex mu;
  std::array<std::shared_ptr<spdlog::logger>, kAreas> by_area;
};

Loggers& All() {
  static Loggers* loggers = new Loggers;  // never destroyed: threads may log during exit
  return *loggers;
}

}  // namespace

const char* LogAreaName(LogArea area) {
  static constexpr std::array<const char*, kAreas> kNames = {"analyzer", "git",  "integration", "store",    "sync",
                                                             "carry",    "jobs", "alerts",      "patterns", "scheduler",
                                                             "tasks",    "http", "app",         "cli"};
  return kNames[static_cast<int>(area)];
}

void ConfigureLogging(spdlog::level::level_enum level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  // Messages are written with control characters escaped: a value cannot end a line and forge the next.
  sink->set_formatter(EscapingFormatter("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v"));
  auto fallback = std::make_shared<spdlog::logger>("forkscope", sink);
  fallback->set_level(level);
  spdlog::set_default_logger(fallback);
  Loggers& all = All();
  std::lock_guard<std::mutex> lock(all.mu);
  for (int i = 0; i < kAreas; ++i) {
    auto logger = std::make_shared<spdlog::logger>(LogAreaName(static_cast<LogArea>(i)), sink);
    logger->set_level(level);
    all.by_area[i] = std::move(logger);
  }
}

std::shared_ptr<spdlog::logger> Log(LogArea area) {
  Loggers& all = All();
  std::lock_guard<std::mutex> lock(all.mu);
  auto& logger = all.by_area[static_cast<int>(area)];
  if (!logger) logger = spdlog::default_logger()->clone(LogAreaName(area));
  return logger;
}

}  // namespace forkscope::base
