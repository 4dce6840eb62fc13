#pragma once
/// \file
/// What a file name a user gave refers to: the end of its chain of symbolic links, and whether two
/// names are one file (docs/trustworthy-runs.md, "Files").

#include <string>

namespace mechint::app {

/// The path that `path` finally names: symbolic links followed one by one (a relative target is
/// taken from the link's directory), also when the last one dangles, so that writing "through" a
/// dangling link creates its target instead of replacing the link. Throws InvalidInput (naming
/// `option`) for a loop of links.
std::string follow_symlinks(const std::string& path, const std::string& option);

/// True when `a` and `b` name the same file: the same inode when both exist, else the same path
/// once links are followed and the path made absolute.
bool same_file(const std::string& a, const std::string& b);

/// Throws InvalidInput "OPTION_A X and OPTION_B Y name the same file" when they do.
void refuse_same_file(const std::string& option_a, const std::string& a, const std::string& option_b,
                      const std::string& b);

}  // namespace mechint::app
