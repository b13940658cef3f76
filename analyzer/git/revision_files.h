// Reading one repository's files at a revision, and where it came from: what a report that quotes the
// analysed lines needs (SARIF snippets and provenance, analyzer/render/sarif.h). One object per
// thread, like the repository it opens.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

class RevisionFiles {
 public:
  // The repository at git_dir (a work tree's .git or a bare repository). NotFound when it is none.
  static Result<std::unique_ptr<RevisionFiles>> Open(const std::string& git_dir);
  ~RevisionFiles();
  RevisionFiles(const RevisionFiles&) = delete;
  RevisionFiles& operator=(const RevisionFiles&) = delete;

  // The text of path in commit (a full id or any revision); nullopt when the path is absent there, is
  // no file, holds a NUL byte (binary) or is larger than max_bytes.
  std::optional<std::string> Text(const std::string& commit, const std::string& path, size_t max_bytes = 1 << 20) const;
  // remote.origin.url as configured ("" when unset).
  std::string OriginUrl() const;

 private:
  struct Impl;
  explicit RevisionFiles(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::analyzer::git
