#pragma once
/// \file
/// Where mechint's installed files are: the prefix whose share/mechint holds the plot scripts and
/// the model compiler's record (model_file/model_compiler.cpp). The command line finds it from its
/// own location (<prefix>/bin/mechint, in the build tree as once installed); the Python module,
/// loaded into another program, sets it from the package's location (python/mechint/__init__.py).

#include <filesystem>

namespace mechint::app {

/// The prefix set by set_installation_prefix; else, for mechint's code in the shared library
/// libmechint (a program linking mechint::mechint), the prefix of <prefix>/<libdir>/libmechint.so;
/// else the parent of the running executable's directory (/proc/self/exe); empty when none is known.
std::filesystem::path installation_prefix();

/// Overrides the prefix for this process.
void set_installation_prefix(const std::filesystem::path& prefix);

/// mechint's own libraries (the HDF5 module, app/hdf5_module.hpp) relative to the prefix: lib/mechint
/// (CMake's CMAKE_INSTALL_LIBDIR), in the build tree as once installed.
extern const char* const kLibraryDir;

}  // namespace mechint::app
