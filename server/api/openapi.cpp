// GET /openapi.yaml: the description of this API (docs/openapi.yaml, compiled in), public like the
// dashboard's assets. Its ETag is the text's hash, so a client revalidates with If-None-Match.
#include <string>

#include "base/text.h"
#include "server/api/openapi_text.h"
#include "server/api/routes.h"

namespace forkscope::server {

void InstallOpenApiRoute(Router& router) {
  const std::string etag = "\"" + base::Fnv1a64Hex(OpenApiText()) + "\"";
  router.AddPlain("/openapi.yaml", [etag](const httplib::Request& req, httplib::Response& res) {
    res.set_header("ETag", etag);
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Content-Type-Options", "nosniff");
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      return;
    }
    res.status = 200;
    res.set_content(std::string(OpenApiText()), "application/yaml");
  });
}

}  // namespace forkscope::server
