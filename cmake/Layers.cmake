# The layers of pipeopt, enforced by the build (docs/architecture.md).
#
# pipeopt_layer(NAME DEPS a b ... [LINK ...]) makes the static library
# pipeopt_NAME from NAME/*.c. Its sources see, through one include root of
# their own (build/views/NAME), only the folder NAME and the folders of its
# layers below (DEPS and, transitively, theirs). An #include of any other
# folder's header therefore fails to compile: a wrong-way arrow is a build
# error, not a review comment.
#
# A layer may only name layers declared before it, so the declared graph is
# a DAG by construction; pipeopt_layers_check() checks it again (a cycle or
# an unknown name stops the configure) and records it in build/layers.txt.
# scripts/layers.sh reads the same pipeopt_layer() lines from CMakeLists.txt
# without a build and checks every #include of the tree against them (CI
# runs it first in scripts/test.sh; ctest runs it as the test "layers").

set(PIPEOPT_VIEWS ${CMAKE_BINARY_DIR}/views)
set_property(GLOBAL PROPERTY PIPEOPT_LAYERS "")

# The folders a layer sees: itself and everything below it.
function(_pipeopt_closure out)
  set(seen "")
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo l)
    if(NOT l IN_LIST seen)
      list(APPEND seen ${l})
      get_property(d GLOBAL PROPERTY PIPEOPT_DEPS_${l})
      list(APPEND todo ${d})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# An include root holding links to exactly the given folders.
function(pipeopt_view name)
  set(dir ${PIPEOPT_VIEWS}/${name})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  foreach(f ${ARGN})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${f} ${dir}/${f} SYMBOLIC)
  endforeach()
endfunction()

function(pipeopt_layer name)
  cmake_parse_arguments(L "" "" "DEPS;LINK;SOURCES" ${ARGN})
  get_property(known GLOBAL PROPERTY PIPEOPT_LAYERS)
  foreach(d ${L_DEPS})
    if(NOT d IN_LIST known)
      message(FATAL_ERROR "layer '${name}' uses '${d}', which is not a layer below it "
                          "(layers so far: ${known})")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY PIPEOPT_LAYERS ${name})
  set_property(GLOBAL PROPERTY PIPEOPT_DEPS_${name} ${L_DEPS})
  _pipeopt_closure(seen ${name})
  set_property(GLOBAL PROPERTY PIPEOPT_SEES_${name} ${seen})
  pipeopt_view(${name} ${seen})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${name}/*.c)
  add_library(pipeopt_${name} STATIC ${srcs} ${L_SOURCES})
  target_include_directories(pipeopt_${name} PRIVATE ${PIPEOPT_VIEWS}/${name})
  set(libs "")
  foreach(d ${L_DEPS})
    list(APPEND libs pipeopt_${d})
  endforeach()
  target_link_libraries(pipeopt_${name} PUBLIC ${libs} ${L_LINK})
endfunction()

# A program (test, benchmark, the binary) that may use the given layers, its
# own folders (FOLDERS: seen, not linked) and extra include folders
# (INCLUDE, relative to the source tree, e.g. tests).
function(pipeopt_program target)
  cmake_parse_arguments(P "" "" "LAYERS;FOLDERS;INCLUDE" ${ARGN})
  _pipeopt_closure(seen ${P_LAYERS})
  list(APPEND seen ${P_FOLDERS})
  pipeopt_view(${target} ${seen})
  target_include_directories(${target} PRIVATE ${PIPEOPT_VIEWS}/${target})
  foreach(i ${P_INCLUDE})
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/${i})
  endforeach()
  set(libs "")
  foreach(l ${P_LAYERS})
    list(APPEND libs pipeopt_${l})
  endforeach()
  target_link_libraries(${target} PRIVATE ${libs})
endfunction()

# Check the declared graph has no cycle (scripts/layers.sh reads the
# pipeopt_layer lines itself and checks the includes against them).
function(pipeopt_layers_check)
  get_property(layers GLOBAL PROPERTY PIPEOPT_LAYERS)
  foreach(l ${layers})
    get_property(s GLOBAL PROPERTY PIPEOPT_SEES_${l})
    list(REMOVE_ITEM s ${l})
    foreach(x ${s})
      get_property(back GLOBAL PROPERTY PIPEOPT_SEES_${x})
      if(l IN_LIST back)
        message(FATAL_ERROR "layers '${l}' and '${x}' use each other")
      endif()
    endforeach()
  endforeach()
endfunction()
