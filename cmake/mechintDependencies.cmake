# What the header-only core needs, found the same way by mechint's own build and by a project that
# calls find_package(mechint): this file is installed next to mechintConfig.cmake.
#
# Defines the imported targets mechint::ceres_jet (the include directory of ceres/jet.h, Debian's
# libceres-dev) and mechint::sundials (SUNDIALS IDA and the dense solver, Debian's libsundials-dev),
# which the exported target mechint::mechint links. Eigen3 is found by the caller (find_package in
# the build, find_dependency in the package config). Sets MECHINT_MISSING_DEPENDENCIES to a list of
# what could not be found instead of failing, so that each caller reports it in its own way.

set(MECHINT_MISSING_DEPENDENCIES "")

if(NOT TARGET mechint::ceres_jet)
  find_path(MECHINT_CERES_JET_INCLUDE_DIR ceres/jet.h)
  if(MECHINT_CERES_JET_INCLUDE_DIR)
    add_library(mechint::ceres_jet INTERFACE IMPORTED)
    set_target_properties(mechint::ceres_jet PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${MECHINT_CERES_JET_INCLUDE_DIR}")
  else()
    list(APPEND MECHINT_MISSING_DEPENDENCIES "ceres/jet.h (Debian: libceres-dev)")
  endif()
endif()

if(NOT TARGET mechint::sundials)
  # Debian's libsundials-dev ships a CMake config; else look for the libraries themselves.
  find_package(SUNDIALS CONFIG QUIET)
  if(TARGET SUNDIALS::ida_shared)
    set(_mechint_sundials SUNDIALS::ida_shared SUNDIALS::sunlinsoldense_shared
        SUNDIALS::sunmatrixdense_shared SUNDIALS::nvecserial_shared)
  else()
    find_library(SUNDIALS_IDA_LIBRARY sundials_ida)
    find_library(SUNDIALS_NVECSERIAL_LIBRARY sundials_nvecserial)
    find_library(SUNDIALS_SUNLINSOLDENSE_LIBRARY sundials_sunlinsoldense)
    find_library(SUNDIALS_SUNMATRIXDENSE_LIBRARY sundials_sunmatrixdense)
    set(_mechint_sundials ${SUNDIALS_IDA_LIBRARY} ${SUNDIALS_SUNLINSOLDENSE_LIBRARY}
        ${SUNDIALS_SUNMATRIXDENSE_LIBRARY} ${SUNDIALS_NVECSERIAL_LIBRARY})
    if(NOT SUNDIALS_IDA_LIBRARY OR NOT SUNDIALS_NVECSERIAL_LIBRARY OR NOT SUNDIALS_SUNLINSOLDENSE_LIBRARY
       OR NOT SUNDIALS_SUNMATRIXDENSE_LIBRARY)
      list(APPEND MECHINT_MISSING_DEPENDENCIES "SUNDIALS IDA (Debian: libsundials-dev)")
      unset(_mechint_sundials)
    endif()
  endif()
  if(DEFINED _mechint_sundials)
    add_library(mechint::sundials INTERFACE IMPORTED)
    set_target_properties(mechint::sundials PROPERTIES INTERFACE_LINK_LIBRARIES "${_mechint_sundials}")
    unset(_mechint_sundials)
  endif()
endif()

if(NOT TARGET mechint::ipopt)
  # Ipopt, the NLP solver of optimal control (mechint::optimal; Debian's coinor-libipopt-dev), through
  # its pkg-config file, which also names the MUMPS, LAPACK and Fortran libraries it needs.
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(MECHINT_IPOPT QUIET IMPORTED_TARGET ipopt)
  endif()
  if(TARGET PkgConfig::MECHINT_IPOPT)
    add_library(mechint::ipopt INTERFACE IMPORTED)
    set_target_properties(mechint::ipopt PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::MECHINT_IPOPT)
  else()
    list(APPEND MECHINT_MISSING_DEPENDENCIES "Ipopt (Debian: coinor-libipopt-dev)")
  endif()
endif()
