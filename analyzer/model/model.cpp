#include "analyzer/model/model.h"

#include <cctype>

#include "base/text.h"

namespace forkscope::analyzer {

const char* LayerName(Layer layer) {
  switch (layer) {
    case Layer::kKernel:
      return "kernel";
    case Layer::kBuild:
      return "build";
    case Layer::kCppCompat:
      return "cpp_compat";
    case Layer::kPython:
      return "python";
    case Layer::kOther:
      return "other";
  }
  return "other";
}

std::optional<Layer> LayerFromName(const std::string& name) {
  for (Layer l : kAllLayers)
    if (name == LayerName(l)) return l;
  return std::nullopt;
}

const char* FileStatusName(FileStatus status) {
  switch (status) {
    case FileStatus::kAdded:
      return "added";
    case FileStatus::kModified:
      return "modified";
    case FileStatus::kDeleted:
      return "deleted";
    case FileStatus::kRenamed:
      return "renamed";
    case FileStatus::kCopied:
      return "copied";
    case FileStatus::kTypeChanged:
      return "typechange";
  }
  return "modified";
}

std::optional<FileStatus> FileStatusFromName(const std::string& name) {
  for (FileStatus s : {FileStatus::kAdded, FileStatus::kModified, FileStatus::kDeleted, FileStatus::kRenamed,
                       FileStatus::kCopied, FileStatus::kTypeChanged})
    if (name == FileStatusName(s)) return s;
  return std::nullopt;
}

const char* MigrationStyleName(MigrationStyle style) {
  switch (style) {
    case MigrationStyle::kCompat:
      return "compat";
    case MigrationStyle::kNative:
      return "native";
    case MigrationStyle::kMixed:
      return "mixed";
    case MigrationStyle::kNone:
      return "none";
  }
  return "none";
}

std::optional<MigrationStyle> MigrationStyleFromName(const std::string& name) {
  for (MigrationStyle s :
       {MigrationStyle::kCompat, MigrationStyle::kNative, MigrationStyle::kMixed, MigrationStyle::kNone})
    if (name == MigrationStyleName(s)) return s;
  return std::nullopt;
}

const char* BaseSourceName(BaseSource source) {
  switch (source) {
    case BaseSource::kUnknown:
      return "";
    case BaseSource::kMergeBase:
      return "merge-base";
    case BaseSource::kGiven:
      return "given";
    case BaseSource::kSearched:
      return "searched";
  }
  return "";
}

std::optional<BaseSource> BaseSourceFromName(const std::string& name) {
  for (BaseSource s : {BaseSource::kUnknown, BaseSource::kMergeBase, BaseSource::kGiven, BaseSource::kSearched})
    if (name == BaseSourceName(s)) return s;
  return std::nullopt;
}

int Hunk::additions() const {
  int n = 0;
  for (const auto& l : lines) n += l.origin == '+';
  return n;
}

int Hunk::deletions() const {
  int n = 0;
  for (const auto& l : lines) n += l.origin == '-';
  return n;
}

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

std::optional<Severity> SeverityFromName(const std::string& name) {
  for (Severity s : {Severity::kError, Severity::kWarning, Severity::kNote})
    if (name == SeverityName(s)) return s;
  return std::nullopt;
}

std::string ViolationFingerprint(const Violation& violation) {
  std::string key = violation.rule + '\n' + violation.path + '\n';
  bool space = false;
  for (char c : violation.snippet) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && key.back() != '\n') key += ' ';
    key += c;
    space = false;
  }
  return base::Fnv1a64Hex(key);
}

}  // namespace forkscope::analyzer
