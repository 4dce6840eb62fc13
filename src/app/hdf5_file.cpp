#include "app/hdf5_file.hpp"

#include <dlfcn.h>

#include <mutex>
#include <stdexcept>

#include "app/hdf5_module.hpp"
#include "app/installation.hpp"
#include "app/output.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

/// libmechint_hdf5.so from <prefix>/<kLibraryDir> (app/installation.hpp: the running program's own
/// installation or build tree, never a path from the environment), loaded once and kept.
const hdf5::Backend& backend() {
  static std::mutex mutex;
  static const hdf5::Backend* loaded = nullptr;
  const std::lock_guard lock(mutex);
  if (loaded != nullptr) return *loaded;
  const fs::path prefix = installation_prefix();
  if (prefix.empty()) throw IoError("HDF5 files need mechint's HDF5 module, and this program's installation is not known");
  const fs::path module = prefix / kLibraryDir / "libmechint_hdf5.so";
  void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw IoError("HDF5 files need mechint's HDF5 module " + quote_for_message(module.string(), 200) + ": " +
                  quote_for_message(why != nullptr ? why : "not loaded", 200));
  }
  const auto entry = reinterpret_cast<hdf5::EntryPoint>(dlsym(handle, hdf5::kEntryPoint));
  if (entry == nullptr || entry() == nullptr)
    throw IoError("mechint's HDF5 module " + quote_for_message(module.string(), 200) + " has no entry point");
  loaded = entry();
  return *loaded;
}

/// `f()`, a module failure (std::runtime_error, one line) turned into IoError; `file` (when given)
/// named in its message.
template <class F>
decltype(auto) in_module(F&& f, const fs::path& file = {}) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {
    if (file.empty()) throw IoError(e.what());
    throw IoError("cannot write " + quote_for_message(file.string(), 200) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw IoError("cannot write " + quote_for_message(file.string(), 200) + ": not enough memory to build it");
  }
}

}  // namespace

struct Hdf5Output::Impl {
  fs::path target;
  std::unique_ptr<hdf5::Writer> file;
};

Hdf5Output::Hdf5Output(const fs::path& target) : impl_(std::make_unique<Impl>()) {
  const hdf5::Backend& module = backend();
  impl_->target = target;
  impl_->file = in_module([&] { return module.create(target); }, target);
}

// Nothing of the file is on the disk before commit(): an error or an interrupt leaves nothing.
Hdf5Output::~Hdf5Output() = default;

void Hdf5Output::create_group(const std::string& path) {
  in_module([&] { impl_->file->create_group(path); }, impl_->target);
}

void Hdf5Output::write_table(const std::string& path, std::size_t rows, std::size_t columns, const double* values,
                             const std::vector<std::string>& column_names) {
  in_module([&] { impl_->file->write_table(path, rows, columns, values, column_names); }, impl_->target);
}

void Hdf5Output::write_strings(const std::string& path, const std::vector<std::string>& values) {
  in_module([&] { impl_->file->write_strings(path, values); }, impl_->target);
}

void Hdf5Output::write_string_attribute(const std::string& path, const std::string& name,
                                        const std::vector<std::string>& values) {
  in_module([&] { impl_->file->write_string_attribute(path, name, values); }, impl_->target);
}

void Hdf5Output::commit() {
  const std::string image = in_module([&] { return impl_->file->close(); }, impl_->target);
  impl_->file.reset();
  // The one writer of mechint's files (app/output.hpp): a temporary beside the target, renamed; a
  // full disk is IoError with no temporary left, an interrupt removes it.
  write_text_atomically(impl_->target.string(), image);
}

std::optional<Hdf5Table> read_hdf5_table(const fs::path& file, const std::string& path) {
  return in_module([&] { return backend().read_table(file, path); });
}

std::optional<std::vector<std::string>> read_hdf5_strings(const fs::path& file, const std::string& path) {
  return in_module([&] { return backend().read_strings(file, path); });
}

std::vector<std::string> read_hdf5_string_attribute(const fs::path& file, const std::string& path,
                                                    const std::string& name) {
  return in_module([&] { return backend().read_string_attribute(file, path, name); });
}

}  // namespace mechint::app
