#pragma once
/// \file
/// Compiles generated model sources into shared libraries, once: a cache keyed by the hash of
/// everything the library depends on (docs/model-files.md, "What is cached where").
///
/// The compiler command is the one mechint itself was built with, recorded at configure time in
/// `<prefix>/share/mechint/model_compiler.json` (the executable finds it from its own path, or
/// `$MECHINT_MODEL_COMPILER` names it). Libraries go to `$XDG_CACHE_HOME/mechint/models` (default
/// `~/.cache/mechint/models`; `$MECHINT_CACHE_DIR` overrides the whole path).

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace mechint::model_file {

/// The compiler command for generated models.
struct Toolchain {
  std::string compiler;           ///< path of the C++ compiler
  std::string compiler_identity;  ///< e.g. "GNU 12.2.0", recorded at configure time
  std::string mechint_version;
  std::vector<std::string> flags;         ///< -std, -O, -fPIC, -shared, definitions
  std::vector<std::string> include_dirs;  ///< absolute: mechint's headers first, then its dependencies'
  std::vector<std::filesystem::path> mechint_header_dirs;  ///< the part of include_dirs that is mechint's
};

/// Reads the toolchain file. Throws std::runtime_error (an installation problem, exit 1) when it is
/// missing or malformed.
Toolchain find_toolchain();

/// The directory compiled models are cached in (created on demand).
std::filesystem::path cache_directory();

/// A hex digest (128 bits, two FNV-1a passes) of `material`: a cache key, not a signature.
std::string digest(const std::string& material);

/// The cache key material of a source: the source, the model file's text, the toolchain and the
/// contents of every mechint header the source can include (an edited header invalidates the cache).
std::string cache_key(const std::string& source, const std::string& model_text, const Toolchain& toolchain);

/// The path of the shared library compiled from `source` under `key`: taken from the cache, or
/// compiled there first (after calling `announce`, once). Safe when several processes compile the
/// same model at once: each writes its own temporary and renames it into place under a lock.
/// Throws std::runtime_error naming the generated source and the compiler's log when the compiler
/// fails (a bug of mechint, not of the model file).
std::filesystem::path compiled_library(const std::string& source, const std::string& key, const Toolchain& toolchain,
                                       const std::function<void()>& announce);

}  // namespace mechint::model_file
