// Query parameters the API handlers share: one parser each, so every route answers the same 400.
#pragma once

#include <httplib.h>

#include <cstddef>

#include "base/status.h"

namespace forkscope::server {

// ?name=N: a non-negative integer, fallback when absent, capped at max. InvalidArgument otherwise.
Result<size_t> SizeParam(const httplib::Request& req, const char* name, size_t fallback, size_t max);

}  // namespace forkscope::server
