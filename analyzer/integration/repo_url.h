// Repository URLs compared as git users mean them: https://host/o/r.git, https://host/o/r/,
// ssh://git@host/o/r, git@host:o/r.git and git://host/o/r all name one repository. Pure.
#pragma once

#include <string>

namespace forkscope::analyzer::integration {

// A comparable key: lower-case host and path without credentials, user, port, scheme, trailing '/' or
// ".git" ("github.com/pfcclab/deepep"); a local path or file:// URL becomes "file:" + its path
// without a trailing '/' or ".git". "" for an empty URL.
std::string RepoUrlKey(const std::string& url);

// A submodule URL as git resolves it: "./x" and "../x" are relative to the superproject's URL
// (each "../" drops one path component of it); anything else comes back unchanged.
std::string ResolveSubmoduleUrl(const std::string& superproject_url, const std::string& url);

// The repository's name: the last path component without ".git" ("DeepEP").
std::string RepoName(const std::string& url);

}  // namespace forkscope::analyzer::integration
