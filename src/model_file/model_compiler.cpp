#include "model_file/model_compiler.hpp"

#include "mechint/core/notices.hpp"
#include "model_file/content_digest.hpp"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "app/child_process.hpp"
#include "app/installation.hpp"
#include "app/temporary_files.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::model_file {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path toolchain_file() {
  if (const char* env = std::getenv("MECHINT_MODEL_COMPILER"); env != nullptr && *env != '\0') return env;
  const fs::path prefix = app::installation_prefix();
  if (prefix.empty()) throw IoError("cannot find the mechint executable's directory (/proc/self/exe)");
  return prefix / "share" / "mechint" / "model_compiler.json";
}

/// A path of the toolchain file: absolute, or relative to the installation prefix.
std::string resolve(const fs::path& prefix, const std::string& path) {
  const fs::path p(path);
  return (p.is_absolute() ? p : prefix / p).lexically_normal().string();
}

/// The first line of the compiler's messages that says what went wrong, for a one-line error.
std::string first_error_line(const std::string& log) {
  std::istringstream lines(log);
  std::string first;
  for (std::string line; std::getline(lines, line);) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first.empty() ? std::string("(no message)") : first;
}

/// True when the compiler reported an error in the generated source itself (a bug of mechint),
/// rather than a problem of its environment (no assembler, a full disk).
bool error_in_source(const std::string& log) {
  return log.find("model.cpp:") != std::string::npos && log.find(": error: ") != std::string::npos;
}

/// A private build directory of the cache, removed with everything in it when the object dies;
/// what it holds is registered for removal on SIGINT/SIGTERM.
class BuildDirectory {
 public:
  explicit BuildDirectory(const ModelCache& cache)
      : path_(cache.make_build_directory()),
        guards_{std::make_unique<app::TemporaryFileGuard>((path_ / "model.so").string()),
                std::make_unique<app::TemporaryFileGuard>((path_ / "model.cpp").string()),
                std::make_unique<app::TemporaryFileGuard>((path_ / "compile.log").string()),
                std::make_unique<app::TemporaryFileGuard>(path_.string())} {}
  BuildDirectory(const BuildDirectory&) = delete;
  BuildDirectory& operator=(const BuildDirectory&) = delete;
  ~BuildDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  fs::path operator/(const char* name) const { return path_ / name; }

 private:
  fs::path path_;
  std::unique_ptr<app::TemporaryFileGuard> guards_[4];
};

}  // namespace

Toolchain find_toolchain() {
  const fs::path file = toolchain_file();
  std::ifstream in(file);
  if (!in)
    throw IoError("model files need the compiler settings in " + file.string() +
                  ", which cannot be read (an incomplete installation? MECHINT_MODEL_COMPILER names another file)");
  Toolchain t;
  try {
    const auto json = nlohmann::json::parse(in);
    const fs::path prefix = file.parent_path().parent_path().parent_path();  // <prefix>/share/mechint/x.json
    t.compiler = json.at("compiler").get<std::string>();
    t.compiler_identity = json.at("compiler_identity").get<std::string>();
    t.mechint_version = json.at("mechint_version").get<std::string>();
    t.flags = json.at("flags").get<std::vector<std::string>>();
    for (const auto& d : json.at("mechint_include_dirs").get<std::vector<std::string>>()) {
      t.include_dirs.push_back(resolve(prefix, d));
      t.mechint_header_dirs.emplace_back(t.include_dirs.back());
    }
    for (const auto& d : json.at("dependency_include_dirs").get<std::vector<std::string>>())
      t.include_dirs.push_back(resolve(prefix, d));
  } catch (const nlohmann::json::exception& e) {
    throw IoError("malformed compiler settings " + file.string() + " (reinstall mechint, or fix the file): " + e.what());
  }
  return t;
}

std::string digest(const std::string& material) { return content_digest(material); }

std::string cache_key(const std::string& made_by, const std::string& model_text, const Toolchain& toolchain) {
  std::string material = "source\n" + made_by + "\nmodel\n" + model_text + "\ncompiler\n" + toolchain.compiler + "\n" +
                         toolchain.compiler_identity + "\nmechint " + toolchain.mechint_version + "\n";
  for (const auto& f : toolchain.flags) material += f + "\n";
  for (const auto& d : toolchain.include_dirs) material += d + "\n";
  // The compiler binary itself (an upgrade in place changes its size or time).
  struct stat info {};
  if (::stat(toolchain.compiler.c_str(), &info) == 0)
    material += std::to_string(info.st_size) + " " + std::to_string(info.st_mtime) + "\n";
  // Every mechint header, in a fixed order: an edited header must not load a stale library.
  std::vector<fs::path> headers;
  for (const auto& dir : toolchain.mechint_header_dirs) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, error), end;
         !error && it != end; it.increment(error))
      if (it->path().extension() == ".hpp") headers.push_back(it->path());
  }
  std::sort(headers.begin(), headers.end());
  for (const auto& h : headers) material += h.string() + "\n" + read_text(h) + "\n";
  return digest(material);
}

namespace {

/// The GNU build ID note (NT_GNU_BUILD_ID) of the loaded object that contains `address`, as hex.
struct BuildIdSearch {
  std::uintptr_t address = 0;
  std::string hex;
};

int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && search->address >= start && search->address < start + ph.p_memsz) contains = true;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = at + ph.p_memsz;
    // Notes are padded to the segment's alignment: 4, or 8 in a segment of 8-aligned notes.
    const std::size_t align = ph.p_align == 8 ? 8 : 4;
    const auto aligned = [align](std::size_t size) { return (size + align - 1) & ~(align - 1); };
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof note);
      const unsigned char* name = at + sizeof note;
      const unsigned char* desc = name + aligned(note.n_namesz);
      if (desc + note.n_descsz > end) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static const char kHex[] = "0123456789abcdef";
        for (std::size_t k = 0; k < note.n_descsz; ++k)
          search->hex += kHex[desc[k] >> 4], search->hex += kHex[desc[k] & 15];
        return 1;
      }
      at = desc + aligned(note.n_descsz);
    }
  }
  return 1;  // the object holding the generator has no build ID
}

}  // namespace

std::string generator_identity() {
  static const std::string identity = [] {
    BuildIdSearch search{reinterpret_cast<std::uintptr_t>(&generator_identity), {}};
    ::dl_iterate_phdr(&find_build_id, &search);
    return search.hex;
  }();
  return identity;
}

CachedLibrary compiled_library(const ModelCache& cache, const std::function<std::string()>& make_source,
                               const std::string& key, const Toolchain& toolchain, const std::string& model) {
  const std::string library = key + ".so";
  if (const int fd = cache.open_trusted(library); fd >= 0) return {fd, cache.path() / library};

  // One compiler per model at a time; whoever waited finds the library in place.
  const ModelCache::Lock lock(cache, key + ".lock");
  if (const int fd = cache.open_trusted(library); fd >= 0) return {fd, cache.path() / library};
  if (app::find_program(toolchain.compiler).empty())
    throw IoError("model files need the C++ compiler " + toolchain.compiler + ", which is not installed (apt-get install g++)"
                  " or not executable; the settings are in " + toolchain_file().string());
  cache.remove_stale_builds();
  const auto started = std::chrono::steady_clock::now();

  const std::string source = make_source();
  const BuildDirectory build(cache);
  const fs::path source_path = build / "model.cpp", log_path = build / "compile.log", output = build / "model.so";
  {
    const int fd = create_new_file(source_path);
    try {
      write_all(fd, source, source_path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw IoError("cannot write " + source_path.string() + ": " + std::strerror(errno));
  }
  std::vector<std::string> argv{toolchain.compiler};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  for (const auto& d : toolchain.include_dirs) argv.push_back("-I" + d);
  argv.insert(argv.end(), {source_path.string(), "-o", output.string()});
  const int log_fd = create_new_file(log_path);
  const app::ChildResult compiled = app::run_program(argv, app::ChildOutput::file(log_fd));
  ::close(log_fd);

  if (!compiled.started)
    throw IoError("cannot run the C++ compiler " + toolchain.compiler + " that model files need: " +
                  std::strerror(compiled.error) + " (install g++, or check " + toolchain_file().string() + ")");
  if (!compiled.succeeded()) {
    // The source and the messages stay in the cache for the user to read (or to report).
    const std::string log = read_text(log_path);
    cache.place(source_path, key + ".cpp");
    cache.place(log_path, key + ".log");
    const std::string where = " (source " + (cache.path() / (key + ".cpp")).string() + ", compiler messages " +
                              (cache.path() / (key + ".log")).string() + ")";
    if (compiled.signal != 0)
      throw IoError("the C++ compiler was killed by signal " + std::to_string(compiled.signal) +
                    " while compiling the model (out of memory?)" + where);
    if (log.find("No space left on device") != std::string::npos)
      throw IoError("the disk is full: the model could not be compiled" + where);
    if (error_in_source(log))
      throw std::runtime_error("the C++ source generated from the model file did not compile: " +
                               first_error_line(log) + where);
    throw IoError("the C++ compiler failed (check the compiler installation and PATH): " + first_error_line(log) +
                  where);
  }
  // A compiler that reports success without writing the library (a wrong compiler in the settings).
  struct stat written {};
  if (::lstat(output.c_str(), &written) != 0 || !S_ISREG(written.st_mode))
    throw IoError("the C++ compiler " + toolchain.compiler + " reported success but wrote no library: check the compiler "
                  "settings in " + toolchain_file().string());
  // Not group- or world-writable whatever the umask: open_trusted would refuse it.
  if (::chmod(output.c_str(), 0700) != 0)
    throw IoError("cannot set the mode of " + output.string() + ": " + std::strerror(errno));
  cache.place(source_path, key + ".cpp");
  cache.place(log_path, key + ".log");
  cache.place(output, library);  // last: a library in the cache always has its source beside it
  const int fd = cache.open_trusted(library);
  if (fd < 0) throw IoError("the compiled model " + (cache.path() / library).string() + " disappeared from the cache");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  notice("mechint: compiled " + model + " in " + format_number(seconds, 2) + " s, once; later runs load it from " +
         cache.path().string());
  return {fd, cache.path() / library};
}

}  // namespace mechint::model_file
