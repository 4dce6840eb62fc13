#include "app/checkpoint_completion.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/file_paths.hpp"
#include "app/output.hpp"
#include "mechint/core/format.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/notices.hpp"

namespace mechint::app {

namespace fs = std::filesystem;

std::string completion_marker(const std::string& rows) { return rows + ".done"; }

void mark_completing(const std::string& rows, const std::string& out_target) {
  write_text_atomically(completion_marker(rows), out_target);
}

void clear_completion(const std::string& rows) {
  std::error_code ignored;
  fs::remove(completion_marker(rows), ignored);
}

bool run_had_completed(const std::string& checkpoint_path, const std::string& rows, const std::string& out) {
  const std::string marker = completion_marker(rows);
  std::error_code error;
  // Only a regular file is read as a marker (never through a link another user could plant).
  if (!fs::is_regular_file(fs::symlink_status(marker, error))) return false;
  if (fs::exists(fs::symlink_status(rows, error))) {
    clear_completion(rows);  // stopped before the rename: resume as usual
    return false;
  }
  std::ifstream in(marker, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string completed_into = text.str();
  if (!same_file(completed_into, out))
    throw InvalidInput("--resume " + quote_for_message(checkpoint_path, 200) + ": its run completed into " +
                       quote_for_message(completed_into, 200) + ", not into --out " + quote_for_message(out, 200));
  // Only a regular file is removed as the checkpoint (as RunCheckpoint refuses any other).
  const std::string target = follow_symlinks(checkpoint_path, "--resume");
  if (fs::is_regular_file(fs::symlink_status(target, error))) fs::remove(target, error);
  clear_completion(rows);
  notice("mechint: the run of " + quote_for_message(checkpoint_path, 200) +
         " had completed (stopped while removing its checkpoint): its output is " + quote_for_message(out, 200));
  return true;
}

}  // namespace mechint::app
