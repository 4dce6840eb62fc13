# Model files (docs/model-files.md): `mechint run my/model.toml` generates C++ for the model,
# compiles it into a shared library with the compiler and flags of this build (so that a generated
# model's step costs what a built-in one's does) and loads it with dlopen. This file records that
# compiler command for the executable, in the build tree and in the installed tree, and installs
# the headers the generated source includes.

# The generated library resolves mechint's own functions (parameters, output, the run loop's
# non-template parts) against the executable that loads it.
set_target_properties(mechint PROPERTIES ENABLE_EXPORTS ON)
target_link_libraries(mechint PRIVATE ${CMAKE_DL_LIBS})

set(MECHINT_MODEL_FLAGS -std=c++20 -O3 -DNDEBUG -fPIC -shared -fvisibility=hidden -DEIGEN_STACK_ALLOCATION_LIMIT=0
    -w)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # The same inlining budget as mechint's own objects (see mechint_build_flags in CMakeLists.txt).
  list(APPEND MECHINT_MODEL_FLAGS --param=inline-unit-growth=200)
endif()

# Include directories of the dependencies the generated source sees through mechint's headers;
# the compiler's own default directories are left out (-I/usr/include breaks #include_next).
get_target_property(_mechint_eigen_dirs Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
set(_mechint_dependency_dirs ${_mechint_eigen_dirs} ${MECHINT_CERES_JET_INCLUDE_DIR})
list(REMOVE_ITEM _mechint_dependency_dirs /usr/include /usr/local/include)
list(REMOVE_DUPLICATES _mechint_dependency_dirs)

function(_mechint_json_array out)
  set(items "")
  foreach(item IN LISTS ARGN)
    string(REPLACE "\\" "\\\\" item "${item}")
    string(REPLACE "\"" "\\\"" item "${item}")
    list(APPEND items "\"${item}\"")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# One file per tree: mechint's header directories absolute in the build tree, relative to the
# prefix once installed (model_file/model_compiler.cpp resolves them from the executable's path).
function(_mechint_write_model_compiler file)
  _mechint_json_array(flags ${MECHINT_MODEL_FLAGS})
  _mechint_json_array(own ${ARGN})
  _mechint_json_array(deps ${_mechint_dependency_dirs})
  file(WRITE ${file} "{\n  \"compiler\": \"${CMAKE_CXX_COMPILER}\",\n"
       "  \"compiler_identity\": \"${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}\",\n"
       "  \"mechint_version\": \"${PROJECT_VERSION}\",\n  \"flags\": ${flags},\n"
       "  \"mechint_include_dirs\": ${own},\n  \"dependency_include_dirs\": ${deps}\n}\n")
endfunction()

set(MECHINT_INSTALL_MODEL_INCLUDEDIR ${CMAKE_INSTALL_DATADIR}/mechint/include)
_mechint_write_model_compiler(${PROJECT_BINARY_DIR}/share/mechint/model_compiler.json
                              ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/src)
_mechint_write_model_compiler(${PROJECT_BINARY_DIR}/install/model_compiler.json
                              ${CMAKE_INSTALL_INCLUDEDIR} ${MECHINT_INSTALL_MODEL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/install/model_compiler.json DESTINATION ${CMAKE_INSTALL_DATADIR}/mechint)
install(DIRECTORY src/app src/model_file DESTINATION ${MECHINT_INSTALL_MODEL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
