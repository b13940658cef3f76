// The unified diff parser: one pass over the input, line by line, with a one-line lookahead (a
// "--- " line starts a file only when a "+++ " line follows). Time and memory are linear in the
// input: nothing is allocated from a count the input states, and every line is looked at a bounded
// number of times. Lines outside files and hunks (commit messages, "Only in" notes, signatures)
// are ignored; inside a hunk every line must be a counted context, added or removed line.
#include "analyzer/diff/unified_diff.h"

#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "analyzer/diff/diff_lines.h"

namespace forkscope::analyzer {
namespace {

using namespace diff_lines;  // NOLINT: the parser is written in the terms of its line syntax

std::string DescribeChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", u);
  return buf;
}

// A file being read: its change, where it began, and what its header lines said.
struct PendingFile {
  FileChange change;
  size_t start_line = 0;
  bool in_git_header = false;  // extended header lines still allowed
  bool new_file = false, deleted_file = false, renamed = false, copied = false;
  bool skipping_binary_patch = false;
  PathSide old_side, new_side;
};

class DiffParser {
 public:
  DiffParser(std::string_view text, const UnifiedDiffLimits& limits) : cursor_(text), limits_(limits) {}

  Result<std::vector<FileChange>> Run() {
    std::string_view line;
    while (cursor_.Next(&line)) FS_RETURN_IF_ERROR(in_hunk_ ? HunkLine(line) : OutsideLine(line));
    if (in_hunk_) return LineError(cursor_.line_no() + 1, "unexpected end of input: " + HunkShortfall());
    FS_RETURN_IF_ERROR(FinishFile());
    return std::move(files_);
  }

 private:
  Status OutsideLine(std::string_view line);
  Status GitHeaderLine(std::string_view line, bool* handled);
  Status StartFile(bool git);
  Status FinishFile();
  Status StartHunk(std::string_view line);
  Status HunkLine(std::string_view line);
  void EndHunkIfComplete();
  Status CheckHunkOverrun(std::string_view line, bool* handled);
  Status BinaryLine(std::string_view rest);
  void CountChange(char origin);
  std::string HunkShortfall() const;
  size_t line_no() const { return cursor_.line_no(); }

  LineCursor cursor_;
  const UnifiedDiffLimits& limits_;
  std::vector<FileChange> files_;
  std::optional<PendingFile> file_;
  // The hunk being read.
  bool in_hunk_ = false;
  bool hunk_just_ended_ = false;
  Hunk hunk_;
  size_t hunk_line_ = 0;
  int old_left_ = 0, new_left_ = 0;
  int next_old_ = 0, next_new_ = 0;
};

Status DiffParser::StartFile(bool git) {
  FS_RETURN_IF_ERROR(FinishFile());
  if (files_.size() + 1 > limits_.max_files)
    return LineError(line_no(), "more than " + std::to_string(limits_.max_files) + " files in the diff");
  file_.emplace();
  file_->start_line = line_no();
  file_->in_git_header = git;
  return Status::Ok();
}

Status DiffParser::FinishFile() {
  hunk_just_ended_ = false;
  if (!file_) return Status::Ok();
  PendingFile f = std::move(*file_);
  file_.reset();
  bool added = f.new_file || (f.old_side.dev_null && !f.deleted_file);
  bool deleted = f.deleted_file || (f.new_side.dev_null && !f.new_file);
  if (added && deleted) return LineError(f.start_line, "file is both added and deleted");
  FileChange& c = f.change;
  const PathSide& main_side = deleted ? f.old_side : f.new_side;
  c.path = main_side.path.empty() ? f.old_side.path : main_side.path;
  if (c.path.empty()) return LineError(f.start_line, "cannot determine the file's path");
  if (added) {
    c.status = FileStatus::kAdded;
  } else if (deleted) {
    c.status = FileStatus::kDeleted;
  } else if (f.renamed || f.copied) {
    c.status = f.renamed ? FileStatus::kRenamed : FileStatus::kCopied;
    c.old_path = f.old_side.path;
  }
  if (c.status != FileStatus::kRenamed && c.status != FileStatus::kCopied) c.similarity = 0;
  files_.push_back(std::move(c));
  return Status::Ok();
}

Status DiffParser::OutsideLine(std::string_view line) {
  bool handled = false;
  FS_RETURN_IF_ERROR(CheckHunkOverrun(line, &handled));
  if (handled) return Status::Ok();
  if (file_ && file_->skipping_binary_patch && !StartsWith(line, "diff ")) return Status::Ok();
  if (StartsWith(line, "diff --git ")) {
    FS_RETURN_IF_ERROR(StartFile(true));
    if (auto names = GitLineNames(line.substr(11))) {
      FS_RETURN_IF_ERROR(SetSide(&file_->old_side, names->first, "a/", PathSource::kDiffGit, line_no()));
      FS_RETURN_IF_ERROR(SetSide(&file_->new_side, names->second, "b/", PathSource::kDiffGit, line_no()));
    }
    return Status::Ok();
  }
  if (StartsWith(line, "diff --cc ") || StartsWith(line, "diff --combined "))
    return LineError(line_no(), "combined (merge) diffs are not supported");
  if (StartsWith(line, "@@")) return StartHunk(line);
  if (StartsWith(line, "--- ")) {
    std::optional<std::string_view> next = cursor_.Peek();
    if (!next || !StartsWith(*next, "+++ ")) return Status::Ok();  // not a file header
    bool header_of_git_file = file_ && file_->in_git_header;
    if (!header_of_git_file) FS_RETURN_IF_ERROR(StartFile(false));
    file_->in_git_header = false;
    std::optional<std::string> old_path = HeaderPath(line.substr(4));
    if (!old_path) return LineError(line_no(), "malformed quoted path");
    FS_RETURN_IF_ERROR(SetSide(&file_->old_side, std::move(*old_path), "a/", PathSource::kHeader, line_no()));
    cursor_.Next(&line);
    std::optional<std::string> new_path = HeaderPath(line.substr(4));
    if (!new_path) return LineError(line_no(), "malformed quoted path");
    return SetSide(&file_->new_side, std::move(*new_path), "b/", PathSource::kHeader, line_no());
  }
  if (StartsWith(line, "Binary files ")) return BinaryLine(line.substr(13));
  if (file_ && file_->in_git_header) return GitHeaderLine(line, &handled);
  return Status::Ok();  // commit messages, "Only in", signatures, "\ No newline" markers
}

// Extended header lines of a "diff --git" file.
Status DiffParser::GitHeaderLine(std::string_view line, bool* handled) {
  PendingFile& f = *file_;
  line = TrimCr(line);
  *handled = true;
  auto extended_path = [&](std::string_view value, PathSide* side) -> Status {
    std::optional<std::string> path = HeaderPath(value);
    if (!path) return LineError(line_no(), "malformed quoted path");
    return SetSide(side, std::move(*path), "", PathSource::kExtended, line_no());
  };
  if (StartsWith(line, "new file mode ")) {
    f.new_file = true;
  } else if (StartsWith(line, "deleted file mode ")) {
    f.deleted_file = true;
  } else if (StartsWith(line, "similarity index ")) {
    std::string_view v = line.substr(17);
    size_t pos = 0;
    int percent = 0;
    if (ParseNumber(v, &pos, &percent) && percent <= 100) f.change.similarity = percent;
  } else if (StartsWith(line, "rename from ") || StartsWith(line, "copy from ")) {
    (line[0] == 'r' ? f.renamed : f.copied) = true;
    return extended_path(line.substr(line.find(" from ") + 6), &f.old_side);
  } else if (StartsWith(line, "rename to ") || StartsWith(line, "copy to ")) {
    (line[0] == 'r' ? f.renamed : f.copied) = true;
    return extended_path(line.substr(line.find(" to ") + 4), &f.new_side);
  } else if (StartsWith(line, "rename old ") || StartsWith(line, "rename new ")) {  // git before 1.5
    f.renamed = true;
    return extended_path(line.substr(11), line[7] == 'o' ? &f.old_side : &f.new_side);
  } else if (line == "GIT binary patch") {
    f.change.binary = true;
    f.skipping_binary_patch = true;  // base85 body until the next "diff " line
    f.in_git_header = false;
  } else {
    *handled = false;  // index, old mode, new mode, dissimilarity index, or anything else
  }
  return Status::Ok();
}

// "Binary files A and B differ": inside a git header it flags that file; elsewhere (diff -r) it
// is a file of its own.
Status DiffParser::BinaryLine(std::string_view rest) {
  rest = TrimCr(rest);
  constexpr std::string_view kDiffer = " differ";
  if (rest.size() < kDiffer.size() || rest.substr(rest.size() - kDiffer.size()) != kDiffer) return Status::Ok();
  rest.remove_suffix(kDiffer.size());
  if (file_ && file_->in_git_header) {  // the diff --git line and mode lines already said it all
    file_->change.binary = true;
    file_->in_git_header = false;
    return Status::Ok();
  }
  FS_RETURN_IF_ERROR(StartFile(false));
  file_->change.binary = true;
  std::optional<std::pair<std::string, std::string>> names;
  constexpr std::string_view kNullAnd = "/dev/null and ", kAndNull = " and /dev/null";
  if (StartsWith(rest, kNullAnd)) {
    names = std::pair(std::string(kDevNull), std::string(rest.substr(kNullAnd.size())));
  } else if (rest.size() >= kAndNull.size() && rest.substr(rest.size() - kAndNull.size()) == kAndNull) {
    names = std::pair(std::string(rest.substr(0, rest.size() - kAndNull.size())), std::string(kDevNull));
  } else {
    names = SplitPair(rest, " and ");
  }
  if (!names) return LineError(line_no(), "malformed \"Binary files\" line");
  FS_RETURN_IF_ERROR(SetSide(&file_->old_side, names->first, "a/", PathSource::kBinaryLine, line_no()));
  return SetSide(&file_->new_side, names->second, "b/", PathSource::kBinaryLine, line_no());
}

Status DiffParser::StartHunk(std::string_view line) {
  if (!file_) return LineError(line_no(), "hunk header outside a file (no ---/+++ or diff --git header before it)");
  Hunk hunk;
  if (!ParseHunkHeader(line, &hunk)) return LineError(line_no(), "malformed hunk header");
  file_->in_git_header = false;
  hunk_ = std::move(hunk);
  hunk_line_ = line_no();
  old_left_ = hunk_.old_lines;
  new_left_ = hunk_.new_lines;
  next_old_ = hunk_.old_start;
  next_new_ = hunk_.new_start;
  in_hunk_ = true;
  EndHunkIfComplete();  // "@@ -1,0 +1,0 @@" has no lines
  return Status::Ok();
}

std::string DiffParser::HunkShortfall() const {
  return "hunk at line " + std::to_string(hunk_line_) + " ends early: its header counts " +
         std::to_string(hunk_.old_lines) + " old and " + std::to_string(hunk_.new_lines) + " new lines, found " +
         std::to_string(hunk_.old_lines - old_left_) + " and " + std::to_string(hunk_.new_lines - new_left_);
}

void DiffParser::CountChange(char origin) {
  FileChange& c = file_->change;
  (origin == '+' ? c.additions : c.deletions)++;
  if (!c.truncated && static_cast<size_t>(c.additions) + c.deletions > limits_.max_lines_per_file) {
    c.truncated = true;
    c.hunks = {};
    hunk_.lines = {};
  }
}

Status DiffParser::HunkLine(std::string_view line) {
  char origin = line.empty() || line == "\r" ? ' ' : line[0];  // an empty line is an empty context line
  if (origin == '\\') return Status::Ok();                     // "\ No newline at end of file"
  bool fits = (origin == '+' && new_left_ > 0) || (origin == '-' && old_left_ > 0) ||
              (origin == ' ' && old_left_ > 0 && new_left_ > 0);
  if (!fits && (origin == '+' || origin == '-' || origin == ' '))
    return LineError(line_no(), "hunk at line " + std::to_string(hunk_line_) +
                                    " has more lines than its header counts (" + DescribeChar(origin) + " line)");
  if (!fits && (StartsWith(line, "@@") || StartsWith(line, "diff "))) return LineError(line_no(), HunkShortfall());
  if (!fits)
    return LineError(line_no(), "unexpected " + DescribeChar(origin) + " at the start of a line in the hunk at line " +
                                    std::to_string(hunk_line_) + " (expected ' ', '+', '-' or '\\')");
  DiffLine d;
  d.origin = origin;
  if (origin != '+') d.old_lineno = next_old_++, --old_left_;
  if (origin != '-') d.new_lineno = next_new_++, --new_left_;
  if (origin != ' ') CountChange(origin);
  if (!file_->change.truncated) {
    d.text = std::string(line.empty() ? line : line.substr(1));
    hunk_.lines.push_back(std::move(d));
  }
  EndHunkIfComplete();
  return Status::Ok();
}

void DiffParser::EndHunkIfComplete() {
  if (old_left_ > 0 || new_left_ > 0) return;
  in_hunk_ = false;
  hunk_just_ended_ = true;
  if (!file_->change.truncated) file_->change.hunks.push_back(std::move(hunk_));
  hunk_ = Hunk();
}

// The line right after a complete hunk: a content line there means the header undercounted.
// "-- " (a format-patch signature) and a "---"/"+++" file header are fine.
Status DiffParser::CheckHunkOverrun(std::string_view line, bool* handled) {
  bool just_ended = hunk_just_ended_;
  if (line.empty() || line[0] != '\\') hunk_just_ended_ = false;
  if (!line.empty() && line[0] == '\\') *handled = file_.has_value();
  if (!just_ended || line.empty()) return Status::Ok();
  char c = line[0];
  bool content = c == '+' || c == ' ' || c == '-';
  if (c == '-') {
    std::string_view t = TrimCr(line);
    std::optional<std::string_view> next = cursor_.Peek();
    if (t == "-- " || t == "--" || (StartsWith(line, "--- ") && next && StartsWith(*next, "+++ "))) content = false;
  }
  if (!content) return Status::Ok();
  return LineError(line_no(), "hunk at line " + std::to_string(hunk_line_) +
                                  " has more lines than its header counts (" + DescribeChar(c) + " line)");
}

}  // namespace

Result<std::vector<FileChange>> ParseUnifiedDiff(std::string_view text, const UnifiedDiffLimits& limits) {
  return DiffParser(text, limits).Run();
}

}  // namespace forkscope::analyzer
