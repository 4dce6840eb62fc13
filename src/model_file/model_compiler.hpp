#pragma once
/// \file
/// Compiles generated model sources into shared libraries, once: a cache keyed by the hash of
/// everything the library depends on (docs/model-files.md, "What is cached where").
///
/// The compiler command is the one mechint itself was built with, recorded at configure time in
/// `<prefix>/share/mechint/model_compiler.json` (the executable finds it from its own path, or
/// `$MECHINT_MODEL_COMPILER` names it). Libraries go to the model cache (model_file/model_cache.hpp).

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model_file/model_cache.hpp"

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

/// Reads the toolchain file. Throws IoError (an installation problem, exit 4) when it is missing or
/// malformed.
Toolchain find_toolchain();

/// A hex digest (128 bits, two FNV-1a passes) of `material`: a cache key, not a signature.
std::string digest(const std::string& material);

/// The cache key of a compiled model: `made_by` (the generated source, or what identifies the
/// generator that writes it: generator_identity()), the model file's text, the toolchain and the
/// contents of every mechint header the source can include (an edited header invalidates the cache).
std::string cache_key(const std::string& made_by, const std::string& model_text, const Toolchain& toolchain);

/// What identifies the code generator of this process: the GNU build ID of the binary that holds it
/// (the executable, or the Python module), a hash the linker computes over everything linked into
/// it, so that a rebuilt generator has a new one. With it a model's cache key needs no generated
/// source, and a cached model starts without generating any. Empty if the binary has none (linked
/// without --build-id): then the source itself is the key's material.
std::string generator_identity();

/// A compiled model in the cache: an open descriptor of the checked library (load it through
/// `/proc/self/fd/<fd>`, model_file_system.cpp) and the path it has in the cache.
struct CachedLibrary {
  int fd = -1;
  std::filesystem::path path;
};

/// The shared library compiled from `source()` under `key`: taken from the cache, or compiled there
/// first in a private build directory and renamed into place (model_file/model_cache.hpp). A
/// compile that succeeded prints one line on stderr naming `model` (e.g. "model 'cart-pole'
/// ('cart-pole.toml')"), its time and the cache; a failure prints nothing but its one error line. Safe when several processes compile the same model at once (a lock
/// per key). Throws IoError (exit 4, one line) when the compiler is missing, cannot run or fails for
/// a reason of its environment (no assembler, a full disk), and std::runtime_error (a bug of
/// mechint, exit 1) when it reports an error in the generated source; both name the source and the
/// compiler's messages, which stay in the cache.
CachedLibrary compiled_library(const ModelCache& cache, const std::function<std::string()>& source,
                               const std::string& key, const Toolchain& toolchain, const std::string& model);

/// The same for a source already generated.
inline CachedLibrary compiled_library(const ModelCache& cache, const std::string& source, const std::string& key,
                                      const Toolchain& toolchain, const std::string& model) {
  return compiled_library(cache, [&] { return source; }, key, toolchain, model);
}

}  // namespace mechint::model_file
