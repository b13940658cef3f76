// Messages for people as codes: beside its English text, a message the API returns carries a code and
// a JSON object of parameters ("<field>_code", "<field>_params"), from which a client renders it in its
// own language. The codes and their parameters are listed in docs/openapi.yaml (schema MessageCode).
// Records keep the code as text and the parameters as JSON text. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace forkscope::base {

// Sets out["<field>_code"] (null when code is "") and out["<field>_params"] (the object params_json
// holds; {} when it is empty or not a JSON object).
void PutMessageCode(nlohmann::json& out, std::string_view field, const std::string& code,
                    const std::string& params_json);

// The parameters as the JSON text records keep; text that is not UTF-8 (a commit subject, a path) has
// its bad bytes replaced by U+FFFD rather than failing.
std::string MessageParamsText(const nlohmann::json& params);

// A nested message, a parameter of another one: {"code", "params", "text"}; code null when "" (the
// text alone says it).
nlohmann::json NestedMessage(const std::string& code, const nlohmann::json& params, const std::string& text);

}  // namespace forkscope::base
