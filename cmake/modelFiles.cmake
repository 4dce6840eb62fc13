# Model files (docs/model-files.md): `mechint run my/model.toml` generates C for the model's
# derivative kernels, compiles it into a shared library with the C compiler of this build's toolchain
# (model_file/model_kernels_plugin.cpp sets the flags: C99, -O1) and loads it with dlopen. The plugin
# holds the kernels only, behind the C ABI of include/mechint/kernel/model_kernels.h: it includes no
# mechint header and calls nothing of the executable. This file records the compiler, in the build
# tree and in the installed tree; its identity is part of a compiled model's cache key.
target_link_libraries(mechint PRIVATE ${CMAKE_DL_LIBS})

# The file's layout is read by model_file/model_compiler.cpp: the compiler, its identity and
# mechint's version; no flags and no include directories (a kernel plugin needs none).
function(_mechint_write_model_compiler file)
  file(WRITE ${file} "{\n  \"compiler\": \"${CMAKE_CXX_COMPILER}\",\n"
       "  \"compiler_identity\": \"${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}\",\n"
       "  \"mechint_version\": \"${PROJECT_VERSION}\",\n  \"flags\": [],\n"
       "  \"mechint_include_dirs\": [],\n  \"dependency_include_dirs\": []\n}\n")
endfunction()

_mechint_write_model_compiler(${PROJECT_BINARY_DIR}/share/mechint/model_compiler.json)
_mechint_write_model_compiler(${PROJECT_BINARY_DIR}/install/model_compiler.json)
install(FILES ${PROJECT_BINARY_DIR}/install/model_compiler.json DESTINATION ${CMAKE_INSTALL_DATADIR}/mechint)
