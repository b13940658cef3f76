// Validates real HTTP responses against docs/openapi.yaml: the response's status must be documented
// for the operation, and a JSON body must satisfy the schema (types, required, properties, items,
// enum, nullable, additionalProperties, allOf/oneOf, $ref). The YAML is converted once with
// Debian's python3-yaml.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace forkscope::testing {

class OpenApi {
 public:
  // Loads FORKSCOPE_SOURCE_DIR/docs/openapi.yaml (REQUIREs success).
  static const OpenApi& Get();
  // "" when the response conforms, else what does not.
  std::string Check(const std::string& method, const std::string& path_template, int status,
                    const std::string& content_type, const std::string& body) const;
  // For answers not tied to one operation (a 405 for a method a path does not take): "" when the body is
  // the documented error document (#/components/responses/Error).
  std::string CheckError(const std::string& content_type, const std::string& body) const;

 private:
  std::string CheckSchema(const nlohmann::json& schema, const nlohmann::json& value, const std::string& where) const;
  const nlohmann::json& Resolve(const nlohmann::json& schema) const;
  nlohmann::json spec_;
};

}  // namespace forkscope::testing
