# GLPK ships neither a CMake config nor a pkg-config file: find the header and
# library by hand and read the version from glpk.h.
find_path(GLPK_INCLUDE_DIR glpk.h)
find_library(GLPK_LIBRARY NAMES glpk)
if(GLPK_INCLUDE_DIR)
  file(STRINGS "${GLPK_INCLUDE_DIR}/glpk.h" _maj REGEX "^#define GLP_MAJOR_VERSION")
  file(STRINGS "${GLPK_INCLUDE_DIR}/glpk.h" _min REGEX "^#define GLP_MINOR_VERSION")
  string(REGEX REPLACE ".*VERSION[ \t]+([0-9]+).*" "\\1" _maj "${_maj}")
  string(REGEX REPLACE ".*VERSION[ \t]+([0-9]+).*" "\\1" _min "${_min}")
  set(GLPK_VERSION "${_maj}.${_min}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(GLPK REQUIRED_VARS GLPK_LIBRARY GLPK_INCLUDE_DIR
                                  VERSION_VAR GLPK_VERSION)
if(GLPK_FOUND AND NOT TARGET GLPK::GLPK)
  add_library(GLPK::GLPK UNKNOWN IMPORTED)
  set_target_properties(GLPK::GLPK PROPERTIES IMPORTED_LOCATION "${GLPK_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${GLPK_INCLUDE_DIR}")
endif()
